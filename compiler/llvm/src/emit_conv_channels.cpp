// fp32 Conv vectorised over output channels, for layers whose planes are
// small or padded. A tile is MR' consecutive positions of one output row x
// NR' output channels: per input channel and kernel row, k_w x NR'/VL weight
// vectors (packed at compile time as [group][M/NR'][K][NR']) stay in
// registers while each input value of the row, read from the phase planes
// (emit_conv_layout.h) at one pointer plus a constant, is broadcast once and
// multiplied into every sum that needs it. Only real output positions are
// computed, so a 7x7 plane costs 49 lanes (the position-vectorised kernel
// rounds it up to 64) and padded layers drop no phase-space columns. The K
// loop runs in blocks of input channels whose weights stay in L1 while the
// tiles of a chunk go through them, the partial sums parked in the thread's
// workspace. An accumulator vector holds VL consecutive output channels of
// one position, which lie a plane apart in NCHW, so the epilogue stores with
// a scatter (and reads a fused residual with a gather): a cost per tile that
// the K loop amortises and that emitConv's choice counts.
#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "emit_conv_layout.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

// Input bytes a chunk of position tiles reads (all channels of its group).
constexpr int64_t kChunkWindowBytes = 256 * 1024;
// Weight bytes of one block of input channels: they stay in L1 while the
// chunk's tiles run through them (the K loop is split into such blocks,
// the partial sums kept in the thread's workspace in between). 12 KiB ran
// ResNet-18's 7x7 layers fastest (against 6, 24 and 40 KiB): room is left
// in L1 for the input rows.
constexpr int64_t kWeightSliceBytes = 12 * 1024;
// Floats per cache line, the step between weight prefetches.
constexpr int64_t kLineFloats = 16;

struct ChannelTiling {
  int64_t pr = 0, nv = 0, nr = 0, ptiles = 0, nblocks = 0;
  int64_t cb = 0, kblocks = 0;  // input channels per K block, K blocks
};

// Tiles whose taps read padding, sorted into classes. A tile's output row
// decides which kernel rows stay inside the input, its column tile which
// (position, kernel column) pairs do; each class of tiles gets its own copy
// of the K loop without the multiply-adds by padding zeros. On a 7x7 plane
// with padding 1 these are 18% of all (the first and last row and column
// each skip a third of their taps).
struct TapClasses {
  std::vector<int64_t> row_class;           // per output row
  std::vector<std::vector<bool>> row_taps;  // per row class: kernel row kh read
  std::vector<int64_t> col_class;           // per column tile
  std::vector<std::vector<bool>> col_taps;  // per column class: (i * k_w + kw) read
  int64_t count() const { return static_cast<int64_t>(row_taps.size() * col_taps.size()); }
};

// More classes than this keep one K loop per dimension that would exceed it:
// each class is a copy of the K loop's code.
constexpr int64_t kMaxTapClasses = 9;

template <typename Mask>
std::pair<std::vector<int64_t>, std::vector<Mask>> classify(int64_t n, const std::function<Mask(int64_t)>& mask_of) {
  std::vector<int64_t> ids(n);
  std::vector<Mask> masks;
  for (int64_t x = 0; x < n; ++x) {
    const Mask m = mask_of(x);
    const auto it = std::find(masks.begin(), masks.end(), m);
    ids[x] = it - masks.begin();
    if (it == masks.end()) masks.push_back(m);
  }
  return {ids, masks};
}

TapClasses tapClassesFor(const ConvGeometry& c, int64_t pr) {
  const Window2& w = c.w;
  TapClasses t;
  auto inside = [](int64_t v, int64_t size) { return v >= 0 && v < size; };
  std::tie(t.row_class, t.row_taps) = classify<std::vector<bool>>(w.out_h, [&](int64_t oh) {
    std::vector<bool> m(w.k_h);
    for (int64_t kh = 0; kh < w.k_h; ++kh) m[kh] = inside(oh * w.stride_h + kh * w.dil_h - w.pad_top, w.in_h);
    return m;
  });
  std::tie(t.col_class, t.col_taps) = classify<std::vector<bool>>(w.out_w / pr, [&](int64_t j) {
    std::vector<bool> m(pr * w.k_w);
    for (int64_t i = 0; i < pr; ++i)
      for (int64_t kw = 0; kw < w.k_w; ++kw)
        m[i * w.k_w + kw] = inside((j * pr + i) * w.stride_w + kw * w.dil_w - w.pad_left, w.in_w);
    return m;
  });
  auto collapse = [](std::vector<int64_t>& ids, std::vector<std::vector<bool>>& masks) {
    std::fill(ids.begin(), ids.end(), 0);
    masks.assign(1, std::vector<bool>(masks[0].size(), true));
  };
  if (t.count() > kMaxTapClasses) collapse(t.col_class, t.col_taps);
  if (t.count() > kMaxTapClasses) collapse(t.row_class, t.row_taps);
  return t;
}

// Multiply-add lanes per image and group of the tiles' K loops, padding
// taps skipped as the classes allow.
int64_t tapLanes(const ConvGeometry& c, const ChannelTiling& t, const TapClasses& k) {
  int64_t per_channel = 0;  // (position, tap) pairs read, over all tiles
  for (int64_t oh = 0; oh < c.w.out_h; ++oh)
    for (int64_t j = 0; j < c.w.out_w / t.pr; ++j) {
      const auto& rows = k.row_taps[k.row_class[oh]];
      const auto& cols = k.col_taps[k.col_class[j]];
      per_channel += std::count(rows.begin(), rows.end(), true) * std::count(cols.begin(), cols.end(), true);
    }
  return per_channel * t.nblocks * t.nr * c.cg;
}

ChannelTiling tilingFor(const ConvGeometry& c, const TargetTuning& tune) {
  ChannelTiling t;
  t.nv = tune.gemm_vectors;
  t.nr = tune.vector_width * t.nv;
  // A tile is MR' consecutive positions of one output row, so that every
  // broadcast address is one pointer plus a constant: MR' is the largest
  // divisor of out_w for which the vector registers hold the accumulators
  // (a tuning of 16 accumulators has 32 registers, a smaller one 16) next
  // to the weights of one kernel row (k_w x NR'/VL vectors) and two
  // broadcasts.
  const int64_t registers = tune.gemm_rows * t.nv >= 16 ? 32 : 16;
  const int64_t max_pr = std::max<int64_t>(1, (registers - c.w.k_w * t.nv - 2) / t.nv);
  t.pr = 1;
  for (int64_t pr = std::min(max_pr, c.w.out_w); pr >= 1; --pr)
    if (c.w.out_w % pr == 0) {
      t.pr = pr;
      break;
    }
  t.ptiles = c.w.out_h * (c.w.out_w / t.pr);
  t.nblocks = (c.mg + t.nr - 1) / t.nr;
  // The largest divisor of cg whose weights fit the slice; no split when
  // only small divisors would (a prime channel count).
  const int64_t limit = std::max<int64_t>(1, kWeightSliceBytes / 4 / (c.taps * t.nr));
  t.cb = c.cg;
  if (c.cg > limit) {
    int64_t d = limit;
    while (c.cg % d != 0) --d;
    if (2 * d >= limit) t.cb = d;
  }
  t.kblocks = c.cg / t.cb;
  return t;
}

Value* finishValue(StepEmitter& e, Value* v, const ConvEpilogue& ep, Value* residual) {
  v = applyActivation(e, v, ep.act);
  if (residual) v = e.b().CreateFAdd(v, residual);
  return applyActivation(e, v, ep.post_act);
}

}  // namespace

int64_t channelTiledLanes(const ConvGeometry& c, const TargetTuning& tune) {
  const ChannelTiling t = tilingFor(c, tune);
  // Tiles of fewer than half the accumulator rows leave the FMA units idle
  // waiting on loads: not a candidate.
  if (2 * t.pr < tune.gemm_rows) return -1;
  return tapLanes(c, t, tapClassesFor(c, t.pr));
}

void emitChannelTiledConv(StepBuilder& s, const ConvGeometry& c, const ConvEpilogue& ep_in) {
  ConvEpilogue ep = ep_in;
  const TargetTuning& tune = s.tuning();
  const ChannelTiling t = tilingFor(c, tune);
  const int64_t vl = tune.vector_width, pr = t.pr, nv = t.nv, nr = t.nr, nblocks = t.nblocks, ptiles = t.ptiles;
  const int64_t kdim = c.cg * c.taps, positions = c.w.out_h * c.w.out_w;
  const PhasedInput p = phasedInput(c.w, c.channels, 1);
  const TapClasses classes = tapClassesFor(c, pr);

  // Weights [M][cg*taps] -> [g][nb][k][nr], zero columns past M; bias alike.
  const rt::Tensor& wt = s.node().input(1)->constant();
  const float* wsrc = wt.data<float>();
  rt::Tensor packed(rt::DType::F32, {c.group * nblocks * kdim * nr});
  float* pw = packed.data<float>();
  for (int64_t g = 0; g < c.group; ++g)
    for (int64_t m = 0; m < c.mg; ++m)
      for (int64_t k = 0; k < kdim; ++k)
        pw[((g * nblocks + m / nr) * kdim + k) * nr + m % nr] = wsrc[(g * c.mg + m) * kdim + k];
  rt::Tensor bias(rt::DType::F32, {c.group * nblocks * nr});
  if (s.node().input(2)) {
    const float* bsrc = s.node().input(2)->constant().data<float>();
    for (int64_t g = 0; g < c.group; ++g)
      for (int64_t m = 0; m < c.mg; ++m) bias.data<float>()[(g * nblocks + m / nr) * nr + m % nr] = bsrc[g * c.mg + m];
  }
  const int x_slot = s.useInput(0);
  const int w_slot = s.addConstant("packed_weights", packed);
  const int b_slot = s.addConstant("packed_bias", bias);
  if (s.residual) ep.residual = s.use(s.residual);
  // One chunk of position tiles per index (see below), its partial sums per thread.
  const int64_t window_floats = std::max<int64_t>(pr, kChunkWindowBytes / 4 / c.cg);
  // Tasks run [image, group][block][chunk]: when two threads split a block
  // into its chunks (rows), only that block's output planes have a cache
  // line written by both cores at the boundary row. With chunks outermost,
  // every output plane of a small layer had one: MobileNetV2's 576 and
  // 960 to 160 layers on 7x7 (5 blocks, chunks of 4 and 3 rows) took the
  // thread with 4 rows twice as long as the other, 0.11 against 0.05 ms
  // (0.09 and 0.08 ms in this order).
  const int64_t chunk = splitForThreads(std::min(ptiles, std::max<int64_t>(1, window_floats / pr)), ptiles,
                                        c.batch * c.group * nblocks, /*chunks_fastest=*/true);
  const int64_t chunks = (ptiles + chunk - 1) / chunk;
  const int64_t partial_bytes = t.kblocks > 1 ? chunk * pr * nr * 4 : 0;
  const bool direct = p.isInput();
  const int64_t layout_bytes = direct ? 0 : (c.batch * p.imageFloats() + p.slack) * 4;
  // Two threads split the input channels of a 1x1 layer that narrows them
  // at least 4-fold (MobileNetV2's projections) instead of its output
  // channels: each thread sums the half of the input that it wrote itself
  // in the step before (split by channel blocks), where the output split
  // had each thread read half of its input from the other core's cache
  // (14x14 projections 0.148-0.155 to 0.128-0.133 ms). A pass after adds
  // the two halves; where the output is not much smaller than the input,
  // that pass costs more than it saves (320 to 1280 channels on 7x7: 0.24
  // to 0.33 ms). The second half's sums go to the shared workspace after
  // the layout.
  const int64_t outputs = c.batch * c.out_channels * positions;
  const bool k_split = c.taps == 1 && t.kblocks >= 2 && c.group == 1 && c.cg >= 4 * c.mg;
  const int64_t shared_bytes = layout_bytes + (k_split ? outputs * 4 : 0);
  s.setWorkspace(shared_bytes, partial_bytes);

  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  if (!direct) emitPhasedInputPass(e, p, x_slot, c.batch);

  // One (image, group, NR' block, chunk of position tiles) per index; in
  // it, K block by K block, the chunk's tiles: a K block's weights stay in
  // L1 across the tiles, the chunk's input window in L2.
  Type* vt = e.vecF32(static_cast<int>(vl));
  const int64_t tasks = c.batch * c.group * chunks * nblocks;
  auto emitTasks = [&](bool split) {
    e.parallelFor(split ? 2 * tasks : tasks, [&](Value* task) {
      // With `split`, task i < tasks sums the first half of the K blocks into
      // y, task tasks + i the second half into the workspace.
      Value* index = split ? b.CreateSRem(task, e.c64(tasks)) : task;
      Value* second = split ? b.CreateICmpSGE(task, e.c64(tasks)) : nullptr;
      Value* kb_begin = split ? b.CreateSelect(second, e.c64(t.kblocks / 2), e.c64(0)) : e.c64(0);
      Value* kb_end = split ? b.CreateSelect(second, e.c64(t.kblocks), e.c64(t.kblocks / 2)) : e.c64(t.kblocks);
      Value* planes = direct ? e.tensor(x_slot, e.f32()) : e.sharedWorkspace(e.f32());
      Value* wp = e.tensor(w_slot, e.f32());
      Value* bp = e.tensor(b_slot, e.f32());
      Value* y = e.tensor(y_slot, e.f32());
      Value* res = ep.residual >= 0 ? e.tensor(ep.residual, e.f32()) : nullptr;
      Value* first_tile = b.CreateMul(b.CreateSRem(index, e.c64(chunks)), e.c64(chunk));
      Value* rest = b.CreateSDiv(index, e.c64(chunks));
      Value* nb = b.CreateSRem(rest, e.c64(nblocks));
      Value* end_tile = b.CreateAdd(first_tile, e.c64(chunk));
      end_tile = b.CreateSelect(b.CreateICmpSLT(end_tile, e.c64(ptiles)), end_tile, e.c64(ptiles));
      Value* ng = b.CreateSDiv(rest, e.c64(nblocks));
      Value* n = b.CreateSDiv(ng, e.c64(c.group));
      Value* g = b.CreateSRem(ng, e.c64(c.group));
      Value* gb = b.CreateAdd(b.CreateMul(g, e.c64(nblocks)), nb);  // block index in the packed weights
      Value* w_base = b.CreateMul(gb, e.c64(kdim * nr));
      Value* x_base = b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(c.channels)), b.CreateMul(g, e.c64(c.cg))),
                                  e.c64(p.channelFloats()));
      // Output channel of lane j of vector v: g*mg + nb*nr + v*vl + j, a lane
      // only when below mg within the group.
      std::vector<Value*> lane_ok, channel_base, bias_v;
      for (int64_t v = 0; v < nv; ++v) {
        std::vector<Constant*> steps;
        for (int64_t j = 0; j < vl; ++j) steps.push_back(b.getInt64(static_cast<uint64_t>(v * vl + j)));
        Value* m = b.CreateAdd(b.CreateVectorSplat(vl, b.CreateMul(nb, e.c64(nr))), ConstantVector::get(steps));
        lane_ok.push_back(b.CreateICmpSLT(m, b.CreateVectorSplat(vl, e.c64(c.mg))));
        Value* oc = b.CreateAdd(
            b.CreateVectorSplat(vl, b.CreateAdd(b.CreateMul(n, e.c64(c.out_channels)), b.CreateMul(g, e.c64(c.mg)))),
            m);
        channel_base.push_back(b.CreateMul(oc, b.CreateVectorSplat(vl, e.c64(positions))));
        bias_v.push_back(e.loadVec(bp, b.CreateAdd(b.CreateMul(gb, e.c64(nr)), e.c64(v * vl)), vl));
      }
      Value* partial = partial_bytes ? e.threadWorkspace(shared_bytes, partial_bytes, e.f32()) : nullptr;
      Value* sums_out =
          split ? b.CreateSelect(second, e.at(e.sharedWorkspace(e.f32()), e.c64(layout_bytes / 4)), y) : y;
      e.loop(kb_begin, kb_end, [&](Value* kb) {
        e.loop(first_tile, end_tile, [&](Value* tile) {
          // The tile's positions: oh * out_w + j*MR' + i, phase-space index
          // oh * wq + j*MR' + i.
          Value* oh = b.CreateSDiv(tile, e.c64(c.w.out_w / pr));
          Value* col_tile = b.CreateSRem(tile, e.c64(c.w.out_w / pr));
          Value* col = b.CreateMul(col_tile, e.c64(pr));
          Value* p0 = b.CreateAdd(b.CreateMul(oh, e.c64(c.w.out_w)), col);
          Value* row_base = b.CreateAdd(x_base, b.CreateAdd(b.CreateMul(oh, e.c64(p.wq)), col));
          // The tile of one class: kernel rows row_taps[kh] and (position,
          // kernel column) pairs col_taps[i * k_w + kw] read, the others skipped.
          auto tileOfClass = [&](const std::vector<bool>& row_taps, const std::vector<bool>& col_taps) {
            Value* zero = b.CreateVectorSplat(vl, e.cf(0));
            std::vector<Value*> init(pr * nv, zero);
            Value* slot = nullptr;  // this tile's partial sums
            if (partial) {
              slot = b.CreateMul(b.CreateSub(tile, first_tile), e.c64(pr * nr));
              Value* first = b.CreateICmpEQ(kb, kb_begin);
              for (int64_t a = 0; a < pr * nv; ++a)
                init[a] = b.CreateSelect(first, zero, e.loadVec(partial, b.CreateAdd(slot, e.c64(a * vl)), vl));
            }
            Value* c0 = b.CreateMul(kb, e.c64(t.cb));
            // Tile r of the chunk's n prefetches channels [r*cb/n, (r+1)*cb/n) of
            // the next K block (see below).
            Value* n_tiles = b.CreateSub(end_tile, first_tile);
            Value* r = b.CreateSub(tile, first_tile);
            Value* prefetch_from = b.CreateSDiv(b.CreateMul(r, e.c64(t.cb)), n_tiles);
            Value* prefetch_to = b.CreateSDiv(b.CreateMul(b.CreateAdd(r, e.c64(1)), e.c64(t.cb)), n_tiles);
            std::vector<Value*> acc = e.loopCarry(t.cb, init, [&](Value* cc, const std::vector<Value*>& sums) {
              std::vector<Value*> next = sums;
              Value* ch = b.CreateAdd(c0, cc);
              Value* xc = b.CreateMul(ch, e.c64(p.channelFloats()));
              Value* wc = b.CreateAdd(w_base, b.CreateMul(ch, e.c64(c.taps * nr)));
              // This channel's weights of the next K block (of the next block of
              // output channels after the last), prefetched by one tile of the
              // chunk: the first tile of a K block reads 9 KiB of weights from
              // memory at the rate of the multiply-adds, faster than the hardware
              // prefetcher runs ahead, and the other tiles read none.
              Value* mine = b.CreateAnd(b.CreateICmpSGE(cc, prefetch_from), b.CreateICmpSLT(cc, prefetch_to));
              Value* ahead = b.CreateAdd(wc, b.CreateSelect(mine, e.c64(t.cb * c.taps * nr), e.c64(0)));
              for (int64_t f = 0; f < c.taps * nr; f += kLineFloats) e.prefetch(wp, b.CreateAdd(ahead, e.c64(f)));
              // Kernel row by kernel row: its k_w weight vectors in registers, each
              // distinct input value of the row broadcast once (tap (kh, kw) of
              // position i and tap (kh, kw') of position i + kw - kw' read the
              // same one) and multiplied into every sum that reads it, in address
              // order so that each broadcast is dead right after its uses.
              for (int64_t kh = 0; kh < c.w.k_h; ++kh) {
                if (!row_taps[kh]) continue;
                std::vector<std::vector<Value*>> wv(c.w.k_w);
                std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> readers;  // offset -> (i, kw)
                for (int64_t kw = 0; kw < c.w.k_w; ++kw) {
                  const int64_t tap = kh * c.w.k_w + kw;
                  bool used = false;
                  for (int64_t i = 0; i < pr; ++i)
                    if (col_taps[i * c.w.k_w + kw]) {
                      readers[p.taps[tap] + i].emplace_back(i, kw);
                      used = true;
                    }
                  if (used)
                    for (int64_t v = 0; v < nv; ++v)
                      wv[kw].push_back(e.loadVec(wp, b.CreateAdd(wc, e.c64(tap * nr + v * vl)), vl));
                }
                Value* row = b.CreateAdd(row_base, xc);
                for (const auto& [offset, uses] : readers) {
                  Value* xv = b.CreateVectorSplat(vl, e.loadAt(e.f32(), planes, b.CreateAdd(row, e.c64(offset))));
                  for (const auto& [i, kw] : uses)
                    for (int64_t v = 0; v < nv; ++v)
                      next[i * nv + v] = e.intrinsic(Intrinsic::fmuladd, {xv, wv[kw][v], next[i * nv + v]});
                }
              }
              return next;
            });
            auto epilogue = [&] {
              for (int64_t i = 0; i < pr; ++i) {
                for (int64_t v = 0; v < nv; ++v) {
                  Value* mask = lane_ok[v];
                  Value* idx = b.CreateAdd(channel_base[v], b.CreateVectorSplat(vl, b.CreateAdd(p0, e.c64(i))));
                  if (split) {  // the half's sums alone; the pass after the loop finishes them
                    b.CreateMaskedScatter(acc[i * nv + v], b.CreateGEP(e.f32(), sums_out, idx), Align(4), mask);
                    continue;
                  }
                  Value* r = nullptr;
                  if (res)
                    r = b.CreateMaskedGather(vt, b.CreateGEP(e.f32(), res, idx), Align(4), mask,
                                             ConstantAggregateZero::get(vt));
                  Value* out = finishValue(e, b.CreateFAdd(acc[i * nv + v], bias_v[v]), ep, r);
                  b.CreateMaskedScatter(out, b.CreateGEP(e.f32(), y, idx), Align(4), mask);
                }
              }
            };
            if (!partial) {
              epilogue();
              return;
            }
            Value* last = b.CreateICmpEQ(kb, b.CreateSub(kb_end, e.c64(1)));
            e.when(last, epilogue);
            e.when(b.CreateNot(last), [&] {
              for (int64_t a = 0; a < pr * nv; ++a) e.storeVec(acc[a], partial, b.CreateAdd(slot, e.c64(a * vl)));
            });
          };
          if (classes.count() == 1) {
            tileOfClass(classes.row_taps[0], classes.col_taps[0]);
            return;
          }
          // The class of this tile, from the runs of equal classes along rows
          // and column tiles (compile-time boundaries), then one branch per class.
          auto classOf = [&](Value* x, const std::vector<int64_t>& ids) {
            Value* id = e.c64(ids[0]);
            for (size_t k = 1; k < ids.size(); ++k)
              if (ids[k] != ids[k - 1])
                id = b.CreateSelect(b.CreateICmpSGE(x, e.c64(static_cast<int64_t>(k))), e.c64(ids[k]), id);
            return id;
          };
          const int64_t col_classes = static_cast<int64_t>(classes.col_taps.size());
          Value* cls = b.CreateAdd(b.CreateMul(classOf(oh, classes.row_class), e.c64(col_classes)),
                                   classOf(col_tile, classes.col_class));
          for (int64_t r = 0; r < static_cast<int64_t>(classes.row_taps.size()); ++r)
            for (int64_t k = 0; k < col_classes; ++k)
              e.when(b.CreateICmpEQ(cls, e.c64(r * col_classes + k)),
                     [&] { tileOfClass(classes.row_taps[r], classes.col_taps[k]); });
        });
      });
    });
    if (!split) return;
    // y = finish(y + second half + bias), a plane of an output channel per index.
    e.parallelFor(c.batch * c.out_channels, [&](Value* plane) {
      Value* y = e.tensor(y_slot, e.f32());
      Value* other = e.at(e.sharedWorkspace(e.f32()), e.c64(layout_bytes / 4));
      Value* res = ep.residual >= 0 ? e.tensor(ep.residual, e.f32()) : nullptr;
      Value* oc = b.CreateSRem(plane, e.c64(c.out_channels));
      Value* g = b.CreateSDiv(oc, e.c64(c.mg));
      Value* m = b.CreateSRem(oc, e.c64(c.mg));
      Value* bias_at =
          b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(g, e.c64(nblocks)), b.CreateSDiv(m, e.c64(nr))), e.c64(nr)),
                      b.CreateSRem(m, e.c64(nr)));
      Value* bias = b.CreateVectorSplat(vl, e.loadAt(e.f32(), e.tensor(b_slot, e.f32()), bias_at));
      Value* base = b.CreateMul(plane, e.c64(positions));
      for (int64_t u = 0; u * vl < positions; ++u) {
        const int64_t lanes = std::min(vl, positions - u * vl);
        Value* at = b.CreateAdd(base, e.c64(u * vl));
        if (lanes == vl) {
          Value* v = b.CreateFAdd(b.CreateFAdd(e.loadVec(y, at, vl), e.loadVec(other, at, vl)), bias);
          e.storeVec(finishValue(e, v, ep, res ? e.loadVec(res, at, vl) : nullptr), y, at);
          continue;
        }
        std::vector<Constant*> bits;
        for (int64_t l = 0; l < vl; ++l) bits.push_back(b.getInt1(l < lanes));
        Value* mask = ConstantVector::get(bits);
        Type* pt = vt->getPointerTo();
        auto load = [&](Value* base_ptr) {
          return b.CreateMaskedLoad(vt, b.CreateBitCast(e.at(base_ptr, at), pt), Align(4), mask,
                                    ConstantAggregateZero::get(vt));
        };
        Value* v = b.CreateFAdd(b.CreateFAdd(load(y), load(other)), bias);
        b.CreateMaskedStore(finishValue(e, v, ep, res ? load(res) : nullptr), b.CreateBitCast(e.at(y, at), pt),
                            Align(4), mask);
      }
    });
  };
  if (!k_split) {
    emitTasks(false);
  } else {
    Value* two = b.CreateICmpEQ(e.numThreads(), e.c64(2));
    e.when(two, [&] { emitTasks(true); });
    e.when(b.CreateNot(two), [&] { emitTasks(false); });
  }
  e.finish();
}

}  // namespace vdla::cpu
