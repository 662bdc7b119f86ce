// fp32 depthwise Conv (group = channels = output channels). Each (image,
// channel) plane is one task. In general the plane is copied into this
// thread's workspace as phase planes (emit_conv_layout.h), then each output
// row is computed as ceil(out_w / VL) vectors (the last one masked, with a
// mask known at compile time) accumulating weight[tap] * plane[q +
// offset(tap)] over the taps, the weights held in registers for the whole
// plane. Strided layers thereby read contiguous vectors as well, and no lane
// of a row is wasted on the dropped phase-space columns.
//
// 3x3 stride-2 layers with one pixel of padding (the downsampling layers of
// MobileNetV2) skip the copy: each output vector loads two vectors of an
// input row and splits them into even and odd columns in registers (taps 1
// and 2), the odd ones shifted by a lane giving tap 0. On 112x112 the copy
// into phase planes cost about as much as the arithmetic. Stride-1 layers
// skip it too: tap (kh, kw) of an output vector is one unaligned load of
// input row oh + kh - pad_top from column ow + kw - pad_left on, lanes
// outside the row masked off (the mask known at compile time; only a row's
// first and last vectors have one), rows outside the plane read a zero row.
#include <algorithm>

#include "emit_conv_layout.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

Value* finishValue(StepEmitter& e, Value* v, const ConvEpilogue& ep, Value* residual) {
  v = applyActivation(e, v, ep.act);
  if (residual) v = e.b().CreateFAdd(v, residual);
  return applyActivation(e, v, ep.post_act);
}

bool readsRowsDirectly(const Window2& w) {
  return w.stride_h == 2 && w.stride_w == 2 && w.k_h == 3 && w.k_w == 3 && w.dil_h == 1 && w.dil_w == 1 &&
         w.pad_top == 1 && w.pad_left == 1;
}

bool readsRowsDirectlyStride1(const Window2& w) {
  return w.stride_h == 1 && w.stride_w == 1 && w.dil_h == 1 && w.dil_w == 1;
}

// The sums of output row `oh` of a stride-1 layer (readsRowsDirectlyStride1),
// read from the plane at x[x_plane ...]; rows of the padding read `zero_row`.
std::vector<Value*> directStride1Row(StepEmitter& e, const Window2& w, Value* x, Value* x_plane, Value* zero_row,
                                     Value* oh, const std::vector<Value*>& weights, Value* bias, int64_t row_vectors) {
  IRBuilder<>& b = e.b();
  const int64_t vl = e.tuning().vector_width;
  Type* vt = e.vecF32(static_cast<int>(vl));
  Value* zero = ConstantAggregateZero::get(vt);
  std::vector<Value*> acc(row_vectors, bias);
  for (int64_t kh = 0; kh < w.k_h; ++kh) {
    Value* ih = b.CreateAdd(oh, e.c64(kh - w.pad_top));
    Value* inside = b.CreateICmpULT(ih, e.c64(w.in_h));  // a negative row compares as large
    Value* row = b.CreateSelect(inside, e.at(x, b.CreateAdd(x_plane, b.CreateMul(ih, e.c64(w.in_w)))), zero_row);
    for (int64_t kw = 0; kw < w.k_w; ++kw)
      for (int64_t u = 0; u < row_vectors; ++u) {
        // Lane j reads input column first + j, when inside the row.
        const int64_t first = u * vl + kw - w.pad_left;
        const int64_t lo = std::clamp<int64_t>(-first, 0, vl), hi = std::clamp<int64_t>(w.in_w - first, 0, vl);
        if (hi <= lo) continue;  // only padding: adds nothing
        Value* in;
        if (lo == 0 && hi == vl) {
          in = e.loadVec(row, e.c64(first), static_cast<int>(vl));
        } else {
          std::vector<Constant*> lanes;
          for (int64_t j = 0; j < vl; ++j) lanes.push_back(b.getInt1(j >= lo && j < hi));
          // Not inbounds: the address of lane 0 may lie before the row.
          Value* p = b.CreateBitCast(b.CreateGEP(e.f32(), row, e.c64(first)), vt->getPointerTo());
          in = b.CreateMaskedLoad(vt, p, Align(4), ConstantVector::get(lanes), zero);
        }
        acc[u] = e.intrinsic(Intrinsic::fmuladd, {weights[kh * w.k_w + kw], in, acc[u]});
      }
  }
  return acc;
}

// The sums of output row `oh` of a stride-2 3x3 layer (readsRowsDirectly),
// read from the plane at x[x_plane ...]; rows of the padding read `zero_row`.
std::vector<Value*> directStride2Row(StepEmitter& e, const Window2& w, Value* x, Value* x_plane, Value* zero_row,
                                     Value* oh, const std::vector<Value*>& weights, Value* bias, int64_t row_vectors) {
  IRBuilder<>& b = e.b();
  const int64_t vl = e.tuning().vector_width;
  Type* vt = e.vecF32(static_cast<int>(vl));
  Value* zero = ConstantAggregateZero::get(vt);
  std::vector<int> even, odd, shifted;
  for (int64_t j = 0; j < vl; ++j) {
    even.push_back(static_cast<int>(2 * j));
    odd.push_back(static_cast<int>(2 * j + 1));
    shifted.push_back(static_cast<int>(vl - 1 + j));  // lane vl-1 of the previous odd vector, then this one's
  }
  // Input columns [first, first + vl) of a row; lanes past the row read as zeros.
  auto load = [&](Value* row, int64_t first) -> Value* {
    const int64_t valid = std::clamp<int64_t>(w.in_w - first, 0, vl);
    if (valid == vl) return e.loadVec(row, e.c64(first), static_cast<int>(vl));
    if (valid == 0) return zero;
    std::vector<Constant*> lanes;
    for (int64_t j = 0; j < vl; ++j) lanes.push_back(b.getInt1(j < valid));
    return b.CreateMaskedLoad(vt, b.CreateBitCast(e.at(row, e.c64(first)), vt->getPointerTo()), Align(4),
                              ConstantVector::get(lanes), zero);
  };
  std::vector<Value*> acc(row_vectors, bias);
  for (int64_t kh = 0; kh < 3; ++kh) {
    Value* ih = b.CreateAdd(b.CreateMul(oh, e.c64(2)), e.c64(kh - 1));
    Value* inside = b.CreateICmpULT(ih, e.c64(w.in_h));  // a negative row compares as large
    Value* row = b.CreateSelect(inside, e.at(x, b.CreateAdd(x_plane, b.CreateMul(ih, e.c64(w.in_w)))), zero_row);
    Value* prev_odd = zero;  // column -1 is padding
    for (int64_t u = 0; u < row_vectors; ++u) {
      Value* lo = load(row, 2 * u * vl);
      Value* hi = load(row, 2 * u * vl + vl);
      Value* ev = b.CreateShuffleVector(lo, hi, even);             // columns 2*ow
      Value* od = b.CreateShuffleVector(lo, hi, odd);              // columns 2*ow + 1
      Value* left = b.CreateShuffleVector(prev_odd, od, shifted);  // columns 2*ow - 1
      acc[u] = e.intrinsic(Intrinsic::fmuladd, {weights[kh * 3], left, acc[u]});
      acc[u] = e.intrinsic(Intrinsic::fmuladd, {weights[kh * 3 + 1], ev, acc[u]});
      acc[u] = e.intrinsic(Intrinsic::fmuladd, {weights[kh * 3 + 2], od, acc[u]});
      prev_odd = od;
    }
  }
  return acc;
}

}  // namespace

DepthwisePlan depthwisePlan(const Window2& w, const TargetTuning& tune) {
  DepthwisePlan d;
  d.w = w;
  d.vl = tune.vector_width;
  d.row_vectors = (w.out_w + d.vl - 1) / d.vl;
  d.tail = w.out_w - (d.row_vectors - 1) * d.vl;
  d.p = phasedInput(w, 1, 1);
  // The last vector of the last row reads up to here.
  const int64_t reach =
      (w.out_h - 1) * d.p.wq + d.row_vectors * d.vl + *std::max_element(d.p.taps.begin(), d.p.taps.end());
  d.direct = readsRowsDirectly(w) || readsRowsDirectlyStride1(w);
  d.plane_floats = d.direct ? w.in_w : std::max(d.p.channelFloats() + d.p.slack, reach);
  return d;
}

bool depthwiseReadsRowsInPlace(const Window2& w, const TargetTuning& tune) { return depthwisePlan(w, tune).direct; }

void emitDepthwisePlane(StepEmitter& e, const DepthwisePlan& d, const ConvEpilogue& ep, Value* x, Value* x_plane,
                        Value* wt, Value* bias_ptr, Value* c, Value* y, Value* y_plane, Value* res, Value* pad,
                        Value* oh_begin, Value* oh_end) {
  IRBuilder<>& b = e.b();
  const Window2& w = d.w;
  const PhasedInput& p = d.p;
  const int64_t vl = d.vl, row_vectors = d.row_vectors, tail = d.tail;
  const int64_t taps = static_cast<int64_t>(p.taps.size());
  if (d.direct)
    b.CreateMemSet(pad, b.getInt8(0), e.c64(d.plane_floats * 4), MaybeAlign(4));
  else
    emitPhasedPlaneCopy(e, p, x, x_plane, pad, e.c64(0));
  if (!d.direct && d.plane_floats > p.channelFloats())
    b.CreateMemSet(e.at(pad, e.c64(p.channelFloats())), b.getInt8(0), e.c64((d.plane_floats - p.channelFloats()) * 4),
                   MaybeAlign(4));
  std::vector<Value*> weights;
  for (int64_t t = 0; t < taps; ++t)
    weights.push_back(
        b.CreateVectorSplat(vl, e.loadAt(e.f32(), wt, b.CreateAdd(b.CreateMul(c, e.c64(taps)), e.c64(t)))));
  Value* bias = b.CreateVectorSplat(vl, bias_ptr ? e.loadAt(e.f32(), bias_ptr, c) : e.cf(0));
  std::vector<Constant*> lanes;
  for (int64_t j = 0; j < vl; ++j) lanes.push_back(b.getInt1(j < tail));
  Value* tail_mask = ConstantVector::get(lanes);
  Type* vt = e.vecF32(static_cast<int>(vl));
  e.loop(oh_begin ? oh_begin : e.c64(0), oh_end ? oh_end : e.c64(w.out_h), [&](Value* oh) {
    std::vector<Value*> acc(row_vectors, bias);
    if (d.direct && w.stride_w == 1) {
      acc = directStride1Row(e, w, x, x_plane, pad, oh, weights, bias, row_vectors);
    } else if (d.direct) {
      acc = directStride2Row(e, w, x, x_plane, pad, oh, weights, bias, row_vectors);
    } else {
      Value* q0 = b.CreateMul(oh, e.c64(p.wq));
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t u = 0; u < row_vectors; ++u) {
          Value* in = e.loadVec(pad, b.CreateAdd(q0, e.c64(p.taps[t] + u * vl)), vl);
          acc[u] = e.intrinsic(Intrinsic::fmuladd, {weights[t], in, acc[u]});
        }
    }
    Value* out_row = b.CreateAdd(y_plane, b.CreateMul(oh, e.c64(w.out_w)));
    for (int64_t u = 0; u < row_vectors; ++u) {
      Value* at = b.CreateAdd(out_row, e.c64(u * vl));
      if (u + 1 < row_vectors || tail == vl) {
        e.storeVec(finishValue(e, acc[u], ep, res ? e.loadVec(res, at, vl) : nullptr), y, at);
        continue;
      }
      Value* r = nullptr;
      if (res) {
        Value* rp = b.CreateBitCast(e.at(res, at), vt->getPointerTo());
        r = b.CreateMaskedLoad(vt, rp, Align(4), tail_mask, ConstantAggregateZero::get(vt));
      }
      b.CreateMaskedStore(finishValue(e, acc[u], ep, r), b.CreateBitCast(e.at(y, at), vt->getPointerTo()), Align(4),
                          tail_mask);
    }
  });
}

void emitDepthwiseConv(StepBuilder& s, const Window2& w, int64_t batch, int64_t channels, const ConvEpilogue& ep_in) {
  ConvEpilogue ep = ep_in;
  const int x_slot = s.useInput(0), w_slot = s.useInput(1), b_slot = s.useInput(2);
  if (s.residual) ep.residual = s.use(s.residual);
  const DepthwisePlan d = depthwisePlan(w, s.tuning());
  // Per thread: the phase planes, or for direct layers one row of zeros.
  s.setWorkspace(0, d.plane_floats * 4);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  e.parallelFor(batch * channels, [&](Value* plane) {
    Value* pad = e.threadWorkspace(0, d.plane_floats * 4, e.f32());
    Value* res = ep.residual >= 0 ? e.tensor(ep.residual, e.f32()) : nullptr;
    emitDepthwisePlane(e, d, ep, e.tensor(x_slot, e.f32()), b.CreateMul(plane, e.c64(w.in_h * w.in_w)),
                       e.tensor(w_slot, e.f32()), b_slot >= 0 ? e.tensor(b_slot, e.f32()) : nullptr,
                       b.CreateSRem(plane, e.c64(channels)), e.tensor(y_slot, e.f32()),
                       b.CreateMul(plane, e.c64(w.out_h * w.out_w)), res, pad);
  });
  e.finish();
}

}  // namespace vdla::cpu
