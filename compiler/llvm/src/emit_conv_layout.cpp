#include "emit_conv_layout.h"

#include <algorithm>

#include <llvm/IR/Intrinsics.h>

namespace vdla::cpu {

using namespace llvm;

namespace {

// Floats below which the copy into phase planes stays on one thread (about
// 20 us of copying, the order of a thread pool's wake-up).
constexpr int64_t kParallelCopyFloats = 64 * 1024;

// ceil(a / b) for b > 0 and any sign of a.
int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

void zeroFloats(StepEmitter& e, Value* base, Value* index, int64_t count) {
  if (count <= 0) return;
  e.b().CreateMemSet(e.at(base, index), e.b().getInt8(0), e.c64(count * 4), MaybeAlign(4));
}

Value* finishValue(StepEmitter& e, Value* v, const ConvEpilogue& ep, Value* residual) {
  v = applyActivation(e, v, ep.act);
  if (residual) v = e.b().CreateFAdd(v, residual);
  return applyActivation(e, v, ep.post_act);
}

}  // namespace

int64_t splitForThreads(int64_t chunk, int64_t tiles, int64_t others, bool chunks_fastest) {
  // Two threads take the first and the second half of the tasks, a task's
  // work being its chunk's tiles; tasks run [chunk][block] (blocks fastest)
  // or [block][chunk]. The busier thread's share of the work, relative to
  // half of it:
  auto imbalance = [&](int64_t c) {
    const int64_t chunks = (tiles + c - 1) / c, count = chunks * others;
    int64_t first = 0;
    for (int64_t t = 0; t < (count + 1) / 2; ++t) {
      const int64_t k = chunks_fastest ? t % chunks : (t / others) % chunks;
      first += std::min(c, tiles - k * c);
    }
    const int64_t total = tiles * others;
    return 2.0 * static_cast<double>(std::max(first, total - first)) / static_cast<double>(total);
  };
  // Whether the two halves of the tasks meet between chunks: with chunks
  // outermost each thread then writes whole rows of every output plane, a
  // contiguous half of the image, which is the half that the next step's
  // bands (or position chunks) read on the same core. (MobileNetV2's stem
  // in 3 chunks, the middle one split by channel blocks, had the first
  // block's second thread read a quarter of its band from the other core:
  // 0.20 against 0.17 ms for the two threads' shares.)
  auto aligned = [&](int64_t c) {
    const int64_t chunks = (tiles + c - 1) / c;
    return chunks_fastest || chunks == 1 || (chunks * others / 2) % others == 0;
  };
  // Chunks down to half the size (at most twice the weight reads), for a
  // gain over 2%, or as even and meeting between chunks.
  int64_t best = chunk;
  double best_imbalance = imbalance(chunk);
  for (int64_t c = chunk - 1; c >= std::max<int64_t>(1, (chunk + 1) / 2); --c) {
    const double x = imbalance(c);
    if (x < best_imbalance - 0.02 || (x <= best_imbalance + 0.02 && aligned(c) && !aligned(best))) {
      best = c;
      best_imbalance = x;
    }
  }
  return best;
}

PhasedInput phasedInput(const Window2& w, int64_t channels, int64_t tile_width) {
  PhasedInput p;
  p.channels = channels;
  p.in_h = w.in_h;
  p.in_w = w.in_w;
  p.pad_top = w.pad_top;
  p.pad_left = w.pad_left;
  p.sh = w.stride_h;
  p.sw = w.stride_w;
  p.out_h = w.out_h;
  p.out_w = w.out_w;
  // Only the padded rows and columns some output reads.
  const int64_t hp = (w.out_h - 1) * w.stride_h + (w.k_h - 1) * w.dil_h + 1;
  const int64_t wp = (w.out_w - 1) * w.stride_w + (w.k_w - 1) * w.dil_w + 1;
  p.hq = ceilDiv(hp, p.sh);
  p.wq = ceilDiv(wp, p.sw);
  int64_t max_tap = 0;
  for (int64_t kh = 0; kh < w.k_h; ++kh)
    for (int64_t kw = 0; kw < w.k_w; ++kw) {
      const int64_t rh = kh * w.dil_h, rw = kw * w.dil_w;
      const int64_t t = ((rh % p.sh) * p.sw + rw % p.sw) * p.hq * p.wq + (rh / p.sh) * p.wq + rw / p.sw;
      p.taps.push_back(t);
      max_tap = std::max(max_tap, t);
    }
  // Dropped positions of the last tile read up to here past the channel's start.
  const int64_t reach = p.tiles(tile_width) * tile_width + max_tap;
  p.slack = std::max<int64_t>(0, reach - p.channelFloats());
  return p;
}

void emitPhasedPlaneCopy(StepEmitter& e, const PhasedInput& p, Value* x, Value* src, Value* dst, Value* dst_offset,
                         int64_t only_row_phase) {
  IRBuilder<>& b = e.b();
  // Every bound is known here, so each phase plane is written as zero rows,
  // then rows of (zeros, input, zeros), then zero rows: no per-element test.
  const int64_t j_lo = std::clamp<int64_t>(p.pad_left, 0, p.wq * p.sw);
  const int64_t j_hi = std::clamp<int64_t>(p.in_w + p.pad_left, j_lo, p.wq * p.sw);
  // Strided layers: one padded input row, then split into its column
  // phases a vector of each phase at a time (sw consecutive vectors of the
  // row, every sw-th lane picked by a shuffle). The row buffer is rounded up
  // to whole vectors; lanes past wq are loaded but never stored.
  const int64_t vl = e.tuning().vector_width;
  const int64_t phase_vectors = (p.wq + vl - 1) / vl;
  Value* padded_row = nullptr;
  if (p.sw > 1) {
    Function* fn = b.GetInsertBlock()->getParent();
    IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    padded_row = entry.CreateAlloca(e.f32(), e.c64(phase_vectors * vl * p.sw));
  }
  for (int64_t ph = 0; ph < p.sh; ++ph) {
    if (only_row_phase >= 0 && ph != only_row_phase) continue;
    const int64_t i_lo = std::clamp<int64_t>(ceilDiv(p.pad_top - ph, p.sh), 0, p.hq);
    const int64_t i_hi = std::clamp<int64_t>(ceilDiv(p.in_h + p.pad_top - ph, p.sh), i_lo, p.hq);
    auto plane = [&](int64_t pw) { return b.CreateAdd(dst_offset, e.c64((ph * p.sw + pw) * p.hq * p.wq)); };
    for (int64_t pw = 0; pw < p.sw; ++pw) {
      zeroFloats(e, dst, plane(pw), i_lo * p.wq);
      zeroFloats(e, dst, b.CreateAdd(plane(pw), e.c64(i_hi * p.wq)), (p.hq - i_hi) * p.wq);
    }
    if (i_hi <= i_lo) continue;
    e.loop(i_lo, i_hi, [&](Value* i) {
      Value* ih = b.CreateAdd(b.CreateMul(i, e.c64(p.sh)), e.c64(ph - p.pad_top));
      Value* src_row = b.CreateAdd(src, b.CreateMul(ih, e.c64(p.in_w)));
      // The padded row: zeros, the input row (padded column j is input
      // column j - pad_left), zeros; written straight into the phase plane
      // when there is one column phase.
      Value* row_base = p.sw == 1 ? dst : padded_row;
      Value* row = p.sw == 1 ? b.CreateAdd(plane(0), b.CreateMul(i, e.c64(p.wq))) : e.c64(0);
      zeroFloats(e, row_base, row, j_lo);
      if (j_hi > j_lo)
        b.CreateMemCpy(e.at(row_base, b.CreateAdd(row, e.c64(j_lo))), MaybeAlign(4),
                       e.at(x, b.CreateAdd(src_row, e.c64(j_lo - p.pad_left))), MaybeAlign(4),
                       e.c64((j_hi - j_lo) * 4));
      zeroFloats(e, row_base, b.CreateAdd(row, e.c64(j_hi)), p.wq * p.sw - j_hi);
      if (p.sw == 1) return;
      // Column phase pw takes padded columns pw, pw + sw, ... (a scalar
      // loop that LLVM vectorised left a scalar remainder of up to 15
      // columns per row: ResNet-18's 56x56 Winograd layout took 0.2 ms).
      Type* vt = e.vecF32(static_cast<int>(vl));
      for (int64_t u = 0; u < phase_vectors; ++u) {
        // sw vectors of the row concatenated: padded columns sw*u*vl on.
        Value* wide = e.loadVec(padded_row, e.c64(p.sw * u * vl), static_cast<int>(vl));
        for (int64_t k = 1; k < p.sw; ++k) {
          Value* next = e.loadVec(padded_row, e.c64((p.sw * u + k) * vl), static_cast<int>(vl));
          const int64_t n = k * vl;  // lanes of `wide`
          std::vector<int> widen(n), concat(n + vl);
          for (int64_t l = 0; l < n; ++l) widen[l] = l < vl ? static_cast<int>(l) : -1;
          for (int64_t l = 0; l < n + vl; ++l) concat[l] = static_cast<int>(l);
          if (n > vl) next = b.CreateShuffleVector(next, UndefValue::get(vt), widen);
          wide = b.CreateShuffleVector(wide, next, concat);
        }
        const int64_t lanes = std::min(vl, p.wq - u * vl);
        std::vector<Constant*> bits;
        for (int64_t l = 0; l < vl; ++l) bits.push_back(b.getInt1(l < lanes));
        for (int64_t pw = 0; pw < p.sw; ++pw) {
          std::vector<int> pick;
          for (int64_t l = 0; l < vl; ++l) pick.push_back(static_cast<int>(pw + p.sw * l));
          Value* v = b.CreateShuffleVector(wide, UndefValue::get(wide->getType()), pick);
          Value* at = b.CreateAdd(b.CreateAdd(plane(pw), b.CreateMul(i, e.c64(p.wq))), e.c64(u * vl));
          if (lanes == vl)
            e.storeVec(v, dst, at);
          else
            b.CreateMaskedStore(v, b.CreateBitCast(e.at(dst, at), vt->getPointerTo()), Align(4),
                                ConstantVector::get(bits));
        }
      }
    });
  }
}

void emitZeroSlack(StepEmitter& e, const PhasedInput& p, Value* dst, Value* floats) {
  zeroFloats(e, dst, floats, p.slack);
}

void emitPhasedInputPass(StepEmitter& e, const PhasedInput& p, int x_slot, int64_t batch) {
  IRBuilder<>& b = e.b();
  // A copy shorter than waking the other threads runs on the calling one.
  const bool parallel = batch * p.imageFloats() >= kParallelCopyFloats;
  // Fewer planes than twice two threads (a stem's 3 channels: one thread
  // copied two planes, the other one, 60 against 30 us): a strided layout's
  // row phases become separate tasks.
  const int64_t parts = batch * p.channels < 4 ? p.sh : 1;
  e.parallelFor(
      batch * p.channels * parts,
      [&](Value* task) {
        Value* plane = b.CreateSDiv(task, e.c64(parts));
        auto copy = [&](int64_t row_phase) {
          emitPhasedPlaneCopy(e, p, e.tensor(x_slot, e.f32()), b.CreateMul(plane, e.c64(p.in_h * p.in_w)),
                              e.sharedWorkspace(e.f32()), b.CreateMul(plane, e.c64(p.channelFloats())), row_phase);
        };
        if (parts == 1) {
          copy(-1);
          return;
        }
        Value* row_phase = b.CreateSRem(task, e.c64(parts));
        for (int64_t ph = 0; ph < parts; ++ph) e.when(b.CreateICmpEQ(row_phase, e.c64(ph)), [&] { copy(ph); });
      },
      parallel);
  emitZeroSlack(e, p, e.sharedWorkspace(e.f32()), e.c64(batch * p.imageFloats()));
}

void storeTile(StepEmitter& e, const PhasedInput& p, const ConvEpilogue& ep, Value* q0,
               const std::vector<TileRow>& rows, int y_slot) {
  storeTile(e, p, ep, q0, rows, e.tensor(y_slot, e.f32()), ep.residual >= 0 ? e.tensor(ep.residual, e.f32()) : nullptr);
}

void storeTile(StepEmitter& e, const PhasedInput& p, const ConvEpilogue& ep, Value* q0,
               const std::vector<TileRow>& rows, Value* y, Value* res) {
  IRBuilder<>& b = e.b();
  const int64_t vl = e.tuning().vector_width;
  const int64_t nvec = static_cast<int64_t>(rows.at(0).vectors.size()), width = nvec * vl;
  const int64_t total = p.positions(), plane_size = p.out_h * p.out_w;
  auto each_row = [&](const std::function<void(const TileRow&)>& store) {
    for (const TileRow& row : rows) {
      if (row.enabled)
        e.when(row.enabled, [&] { store(row); });
      else
        store(row);
    }
  };

  // Plain stores when every lane is an output: the tile then lies in one
  // output row, or the phase space has no dropped columns at all.
  Value* full = nullptr;
  if (p.wq == p.out_w)
    full = b.CreateICmpSLE(b.CreateAdd(q0, e.c64(width)), e.c64(total));
  else if (width <= p.out_w)
    full = b.CreateICmpSLE(b.CreateAdd(b.CreateSRem(q0, e.c64(p.wq)), e.c64(width)), e.c64(p.out_w));
  if (full) {
    e.when(full, [&] {
      Value* dest =
          b.CreateAdd(b.CreateMul(b.CreateSDiv(q0, e.c64(p.wq)), e.c64(p.out_w)), b.CreateSRem(q0, e.c64(p.wq)));
      each_row([&](const TileRow& row) {
        for (int64_t v = 0; v < nvec; ++v) {
          Value* at = b.CreateAdd(row.plane_base, b.CreateAdd(dest, e.c64(v * vl)));
          Value* sum = row.bias ? b.CreateFAdd(row.vectors[v], row.bias) : row.vectors[v];
          e.storeVec(finishValue(e, sum, ep, res ? e.loadVec(res, at, vl) : nullptr), y, at);
        }
      });
    });
  }

  auto masked = [&] {
    // Lane j of vector v is position q = q0 + v*vl + j: an output when its
    // column q % wq is below out_w and q is inside phase space. Its valid
    // lanes are consecutive outputs from the first one's index on.
    std::vector<Value*> masks, dests;
    std::vector<Constant*> steps;
    for (int64_t j = 0; j < vl; ++j) steps.push_back(b.getInt32(static_cast<uint32_t>(j)));
    Value* lane = ConstantVector::get(steps);
    for (int64_t v = 0; v < nvec; ++v) {
      Value* qv = b.CreateAdd(q0, e.c64(v * vl));
      Value* q = b.CreateAdd(b.CreateVectorSplat(vl, b.CreateTrunc(qv, e.i32())), lane);
      Value* col = b.CreateURem(q, b.CreateVectorSplat(vl, e.c32(static_cast<int32_t>(p.wq))));
      masks.push_back(b.CreateAnd(b.CreateICmpULT(col, b.CreateVectorSplat(vl, e.c32(static_cast<int32_t>(p.out_w)))),
                                  b.CreateICmpULT(q, b.CreateVectorSplat(vl, e.c32(static_cast<int32_t>(total))))));
      Value* rem = b.CreateSRem(qv, e.c64(p.wq));
      Value* dest = b.CreateAdd(b.CreateMul(b.CreateSDiv(qv, e.c64(p.wq)), e.c64(p.out_w)),
                                b.CreateSelect(b.CreateICmpSLT(rem, e.c64(p.out_w)), rem, e.c64(p.out_w)));
      // A vector wholly past the plane writes nothing; keep its address in bounds.
      dests.push_back(b.CreateSelect(b.CreateICmpSLT(dest, e.c64(plane_size)), dest, e.c64(plane_size)));
    }
    Module* m = b.GetInsertBlock()->getModule();
    Type* vt = e.vecF32(static_cast<int>(vl));
    Function* compress = Intrinsic::getDeclaration(m, Intrinsic::masked_compressstore, {vt});
    Function* expand = Intrinsic::getDeclaration(m, Intrinsic::masked_expandload, {vt});
    each_row([&](const TileRow& row) {
      for (int64_t v = 0; v < nvec; ++v) {
        Value* at = b.CreateAdd(row.plane_base, dests[v]);
        Value* r = res ? b.CreateCall(expand, {e.at(res, at), masks[v], ConstantAggregateZero::get(vt)}) : nullptr;
        Value* out = finishValue(e, row.bias ? b.CreateFAdd(row.vectors[v], row.bias) : row.vectors[v], ep, r);
        b.CreateCall(compress, {out, e.at(y, at), masks[v]});
      }
    });
  };
  if (full)
    e.when(b.CreateNot(full), masked);
  else
    masked();
}

}  // namespace vdla::cpu
