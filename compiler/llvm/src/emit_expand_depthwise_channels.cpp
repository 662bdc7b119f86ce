// The fused 1x1 expansion + depthwise step on small planes (MobileNetV2's
// 14x14 and 7x7 blocks), vectorised along channels. Position tiles of
// NR = 32 lanes waste a quarter of the work on a 7x7 plane (64 lanes for 49
// positions) and an eighth on 14x14; here a vector holds VL consecutive
// expanded channels of one position, so every lane is a real output.
//
// Each task is (image, block of NR expanded channels). The expansion runs
// as the channel kernel of emit_conv_channels.cpp does: a tile is MR'
// positions of one row (MR' a divisor of the row) x NR channels, each
// input value broadcast once against the block's weight vectors; its sums
// go to the thread's scratch memory position-major, [position][NR], with
// plain vector stores (the whole block's planes are 6 KiB on 7x7, 25 KiB on
// 14x14: they stay in L1). The depthwise layer then reads that layout
// directly: an output position's NR sums are tap by tap one vector load of
// the input position times the tap's weight vector, the column bounds of
// the taps known at compile time (output columns are unrolled), rows past
// the plane reading a zero row. Consecutive channels lie a plane apart in
// the NCHW output, so an output row of at most VL positions is transposed
// in registers (VL x VL blocks, log2(VL) shuffle stages) and stored one
// channel's row per vector; wider rows scatter each vector.
#include <algorithm>

#include "emit_conv_layout.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

// Widest output row whose columns are unrolled in the depthwise half.
constexpr int64_t kMaxUnrolledColumns = 16;

int64_t registersOf(const TargetTuning& tune) { return tune.gemm_rows * tune.gemm_vectors >= 16 ? 32 : 16; }

// MR': the largest divisor of the row width whose accumulators fit the
// registers next to the weight vectors and a broadcast.
int64_t positionsPerTile(const ExpandDepthwise& f, const TargetTuning& tune) {
  const int64_t nv = tune.gemm_vectors;
  const int64_t max_pr = std::max<int64_t>(1, (registersOf(tune) - nv - 2) / nv);
  for (int64_t pr = std::min(max_pr, f.expand.in_w); pr >= 1; --pr)
    if (f.expand.in_w % pr == 0) return pr;
  return 1;
}

// Transposes vl x vl floats held as vl vectors (rows[i] lane j is element
// (i, j)); rows may be fewer, the missing ones read as zeros. Butterfly
// stages: at distance d, rows i and i + d (i & d == 0) swap their
// off-diagonal d x d blocks, one two-input shuffle per row and stage.
std::vector<Value*> transpose(StepEmitter& e, std::vector<Value*> rows, int64_t vl) {
  IRBuilder<>& b = e.b();
  rows.resize(vl, ConstantAggregateZero::get(e.vecF32(static_cast<int>(vl))));
  for (int64_t d = 1; d < vl; d *= 2) {
    std::vector<int> low, high;
    for (int64_t j = 0; j < vl; ++j) {
      low.push_back(static_cast<int>((j & d) == 0 ? j : vl + j - d));
      high.push_back(static_cast<int>((j & d) == 0 ? j + d : vl + j));
    }
    for (int64_t i = 0; i < vl; ++i) {
      if (i & d) continue;
      Value* a = rows[i];
      Value* c = rows[i + d];
      rows[i] = b.CreateShuffleVector(a, c, low);
      rows[i + d] = b.CreateShuffleVector(a, c, high);
    }
  }
  return rows;
}

Value* vectorOfLanes(StepEmitter& e, int64_t first, int64_t vl) {
  std::vector<Constant*> lanes;
  for (int64_t j = 0; j < vl; ++j) lanes.push_back(e.b().getInt64(static_cast<uint64_t>(first + j)));
  return ConstantVector::get(lanes);
}

}  // namespace

bool channelMajorFits(const ExpandDepthwise& f, const TargetTuning& tune) {
  const int64_t nv = tune.gemm_vectors;
  const int64_t taps = f.depthwise.k_h * f.depthwise.k_w;
  // Tiles of fewer than half the accumulator rows wait on loads (as in the
  // channel kernel); the depthwise weight vectors must stay in registers.
  return f.depthwise.out_w <= kMaxUnrolledColumns && 2 * positionsPerTile(f, tune) >= tune.gemm_rows &&
         (taps + 2) * nv <= registersOf(tune);
}

void emitExpandDepthwiseByChannels(StepBuilder& s, const ExpandDepthwise& f) {
  const ir::Node& dw = *s.fused_depthwise;
  const TargetTuning& tune = s.tuning();
  const int64_t vl = tune.vector_width, nv = tune.gemm_vectors, nr = vl * nv;
  const int64_t k = f.channels, m = f.expanded, nblocks = (m + nr - 1) / nr;
  const Window2& dw_w = f.depthwise;
  const int64_t in_h = f.expand.in_h, in_w = f.expand.in_w, plane = in_h * in_w;
  const int64_t out_plane = dw_w.out_h * dw_w.out_w, taps = dw_w.k_h * dw_w.k_w;
  const int64_t pr = positionsPerTile(f, tune), ptiles = plane / pr;

  // Packed at compile time, channel blocks of NR, zero past M:
  // expansion weights [nb][K][NR] and bias, depthwise taps [nb][tap][NR]
  // and bias.
  const float* w1 = s.node().input(1)->constant().data<float>();
  const float* b1 = s.node().input(2) ? s.node().input(2)->constant().data<float>() : nullptr;
  const float* w2 = dw.input(1)->constant().data<float>();
  const float* b2 = dw.numInputs() > 2 && dw.input(2) ? dw.input(2)->constant().data<float>() : nullptr;
  rt::Tensor pw1(rt::DType::F32, {nblocks * k * nr}), pb1(rt::DType::F32, {nblocks * nr});
  rt::Tensor pw2(rt::DType::F32, {nblocks * taps * nr}), pb2(rt::DType::F32, {nblocks * nr});
  for (int64_t c = 0; c < m; ++c) {
    const int64_t nb = c / nr, lane = c % nr;
    for (int64_t i = 0; i < k; ++i) pw1.data<float>()[(nb * k + i) * nr + lane] = w1[c * k + i];
    for (int64_t t = 0; t < taps; ++t) pw2.data<float>()[(nb * taps + t) * nr + lane] = w2[c * taps + t];
    if (b1) pb1.data<float>()[c] = b1[c];
    if (b2) pb2.data<float>()[c] = b2[c];
  }
  const int x_slot = s.useInput(0);
  const int w1_slot = s.addConstant("packed_weights", pw1);
  const int b1_slot = s.addConstant("packed_bias", pb1);
  const int w2_slot = s.addConstant("packed_depthwise_weights", pw2);
  const int b2_slot = s.addConstant("packed_depthwise_bias", pb2);
  // Per thread: the block's expanded planes, then a zero row.
  const int64_t thread_floats = (plane + in_w) * nr;
  s.setWorkspace(0, thread_floats * 4);

  // Rows that fit one vector are transposed in registers before the store;
  // wider ones are scattered.
  const bool transposed = dw_w.out_w <= vl;

  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  Type* vt = e.vecF32(static_cast<int>(vl));
  e.parallelFor(f.batch * nblocks, [&](Value* index) {
    Value* nb = b.CreateSRem(index, e.c64(nblocks));
    Value* n = b.CreateSDiv(index, e.c64(nblocks));
    Value* expanded_planes = e.threadWorkspace(0, thread_floats * 4, e.f32());
    Value* zero_row = e.at(expanded_planes, e.c64(plane * nr));
    b.CreateMemSet(zero_row, b.getInt8(0), e.c64(in_w * nr * 4), MaybeAlign(4));
    Value* xp = e.tensor(x_slot, e.f32());
    Value* w1p = e.tensor(w1_slot, e.f32());
    Value* x_image = b.CreateMul(n, e.c64(k * plane));
    Value* w_base = b.CreateMul(nb, e.c64(k * nr));
    std::vector<Value*> bias1;
    for (int64_t v = 0; v < nv; ++v)
      bias1.push_back(
          e.loadVec(e.tensor(b1_slot, e.f32()), b.CreateAdd(b.CreateMul(nb, e.c64(nr)), e.c64(v * vl)), vl));

    // The expansion: tiles of MR' positions x NR channels.
    e.loop(0, ptiles, [&](Value* tile) {
      Value* p0 = b.CreateMul(tile, e.c64(pr));
      std::vector<Value*> init;  // the sums start from the bias
      for (int64_t i = 0; i < pr; ++i) init.insert(init.end(), bias1.begin(), bias1.end());
      std::vector<Value*> acc = e.loopCarry(k, init, [&](Value* c, const std::vector<Value*>& sums) {
        std::vector<Value*> next = sums;
        std::vector<Value*> wv;
        for (int64_t v = 0; v < nv; ++v)
          wv.push_back(e.loadVec(w1p, b.CreateAdd(w_base, b.CreateAdd(b.CreateMul(c, e.c64(nr)), e.c64(v * vl))), vl));
        Value* row = b.CreateAdd(x_image, b.CreateAdd(b.CreateMul(c, e.c64(plane)), p0));
        for (int64_t i = 0; i < pr; ++i) {
          Value* xv = b.CreateVectorSplat(vl, e.loadAt(e.f32(), xp, b.CreateAdd(row, e.c64(i))));
          for (int64_t v = 0; v < nv; ++v)
            next[i * nv + v] = e.intrinsic(Intrinsic::fmuladd, {xv, wv[v], next[i * nv + v]});
        }
        return next;
      });
      for (int64_t i = 0; i < pr; ++i)
        for (int64_t v = 0; v < nv; ++v) {
          Value* out = applyActivation(e, acc[i * nv + v], f.expand_act);
          e.storeVec(out, expanded_planes,
                     b.CreateAdd(b.CreateMul(b.CreateAdd(p0, e.c64(i)), e.c64(nr)), e.c64(v * vl)));
        }
    });

    // The depthwise layer over the block, one output row at a time.
    std::vector<Value*> dw_weights, bias2, lane_ok, channel_base;
    Value* w2p = e.tensor(w2_slot, e.f32());
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t v = 0; v < nv; ++v)
        dw_weights.push_back(
            e.loadVec(w2p, b.CreateAdd(b.CreateMul(nb, e.c64(taps * nr)), e.c64(t * nr + v * vl)), vl));
    for (int64_t v = 0; v < nv; ++v) {
      bias2.push_back(
          e.loadVec(e.tensor(b2_slot, e.f32()), b.CreateAdd(b.CreateMul(nb, e.c64(nr)), e.c64(v * vl)), vl));
      Value* channel = b.CreateAdd(b.CreateVectorSplat(vl, b.CreateMul(nb, e.c64(nr))), vectorOfLanes(e, v * vl, vl));
      lane_ok.push_back(b.CreateICmpSLT(channel, b.CreateVectorSplat(vl, e.c64(m))));
      Value* image_channel = b.CreateAdd(b.CreateVectorSplat(vl, b.CreateMul(n, e.c64(m))), channel);
      channel_base.push_back(b.CreateMul(image_channel, b.CreateVectorSplat(vl, e.c64(out_plane))));
    }
    e.loop(0, dw_w.out_h, [&](Value* oh) {
      std::vector<Value*> rows;
      for (int64_t kh = 0; kh < dw_w.k_h; ++kh) {
        Value* ih = b.CreateAdd(b.CreateMul(oh, e.c64(dw_w.stride_h)), e.c64(kh * dw_w.dil_h - dw_w.pad_top));
        Value* inside = b.CreateICmpULT(ih, e.c64(in_h));  // a negative row compares as large
        rows.push_back(b.CreateSelect(inside, e.at(expanded_planes, b.CreateMul(ih, e.c64(in_w * nr))), zero_row));
      }
      Value* y = e.tensor(y_slot, e.f32());
      Value* out_row = b.CreateMul(oh, e.c64(dw_w.out_w));
      std::vector<std::vector<Value*>> row_sums(nv);  // [v][ow]: the row's results, channel-major
      for (int64_t ow = 0; ow < dw_w.out_w; ++ow) {
        std::vector<Value*> acc = bias2;
        for (int64_t kh = 0; kh < dw_w.k_h; ++kh)
          for (int64_t kw = 0; kw < dw_w.k_w; ++kw) {
            const int64_t iw = ow * dw_w.stride_w + kw * dw_w.dil_w - dw_w.pad_left;
            if (iw < 0 || iw >= in_w) continue;  // padding column
            for (int64_t v = 0; v < nv; ++v) {
              Value* in = e.loadVec(rows[kh], e.c64(iw * nr + v * vl), vl);
              acc[v] = e.intrinsic(Intrinsic::fmuladd, {dw_weights[(kh * dw_w.k_w + kw) * nv + v], in, acc[v]});
            }
          }
        Value* position = b.CreateVectorSplat(vl, b.CreateAdd(out_row, e.c64(ow)));
        for (int64_t v = 0; v < nv; ++v) {
          Value* out = applyActivation(e, acc[v], f.depthwise_act);
          if (transposed)
            row_sums[v].push_back(out);
          else
            b.CreateMaskedScatter(out, b.CreateGEP(e.f32(), y, b.CreateAdd(channel_base[v], position)), Align(4),
                                  lane_ok[v]);
        }
      }
      if (!transposed) return;
      // The row as VL x VL blocks turned around in registers: one vector per
      // channel holding its out_w outputs, one (masked) store each.
      std::vector<Constant*> lanes;
      for (int64_t j = 0; j < vl; ++j) lanes.push_back(b.getInt1(j < dw_w.out_w));
      Value* row_mask = ConstantVector::get(lanes);
      for (int64_t v = 0; v < nv; ++v) {
        const std::vector<Value*> channels = transpose(e, row_sums[v], vl);
        for (int64_t j = 0; j < vl; ++j) {
          Value* channel = b.CreateAdd(b.CreateMul(nb, e.c64(nr)), e.c64(v * vl + j));
          auto store = [&] {
            Value* at =
                b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(m)), channel), e.c64(out_plane)), out_row);
            if (dw_w.out_w == vl)
              e.storeVec(channels[j], y, at);
            else
              b.CreateMaskedStore(channels[j], b.CreateBitCast(e.at(y, at), vt->getPointerTo()), Align(4), row_mask);
          };
          if (m % nr != 0)
            e.when(b.CreateICmpSLT(channel, e.c64(m)), store);
          else
            store();
        }
      }
    });
  });
  e.finish();
}

}  // namespace vdla::cpu
