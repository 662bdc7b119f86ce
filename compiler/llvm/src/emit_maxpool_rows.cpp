// f32 MaxPool over 2-D windows without dilation, vectorised along output
// rows (ResNet's 3x3 stride-2 pooling after the stem). The general pooling
// loop computes one output at a time with a clamped load and a select per
// tap (0.58 ms for ResNet-18's 64x112x112 input on one core); here each
// output row is two vector passes over a row buffer in the thread's
// workspace:
//   1. vertical: buffer[pad_left + iw] = max over the window's rows that lie
//      inside the plane of X[ih][iw] (whole vectors, a masked last one);
//   2. horizontal: output vector [ow0, ow0 + VL) = max over kw of the lanes
//      ow * stride + kw of the buffer: one load of stride * VL consecutive
//      floats per tap, every stride-th lane picked by a shuffle.
// The buffer's columns left and right of the plane hold the type's lowest
// value, the reference's starting value, so padding (and ceil_mode windows
// running past it) never wins. Max is taken as the reference takes it,
// `v > acc ? v : acc`.
#include <algorithm>
#include <limits>

#include "step_builder.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

// Widest horizontal stride the shuffle pass takes (a load of stride * VL lanes).
constexpr int64_t kMaxStride = 4;

Value* laneMask(IRBuilder<>& b, int64_t vl, int64_t lanes) {
  std::vector<Constant*> bits;
  for (int64_t j = 0; j < vl; ++j) bits.push_back(b.getInt1(j < lanes));
  return ConstantVector::get(bits);
}

Value* maxOf(IRBuilder<>& b, Value* acc, Value* v) { return b.CreateSelect(b.CreateFCmpOGT(v, acc), v, acc); }

}  // namespace

bool maxPoolRowsApplies(const Window2& w) {
  return w.dil_h == 1 && w.dil_w == 1 && w.stride_w >= 1 && w.stride_w <= kMaxStride && w.k_w <= 16 && w.k_h <= 16;
}

void emitMaxPoolRows(StepBuilder& s, const Window2& w, int64_t planes) {
  const int64_t vl = s.tuning().vector_width;
  const int64_t out_vectors = (w.out_w + vl - 1) / vl;
  // Highest buffer index a horizontal load touches, plus one.
  const int64_t reach = (out_vectors - 1) * vl * w.stride_w + (w.k_w - 1) + w.stride_w * vl;
  const int64_t buffer = (std::max(reach, w.pad_left + w.in_w + vl) + 15) / 16 * 16;
  s.setWorkspace(0, buffer * 4);
  const int x_slot = s.useInput(0);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  Type* vt = e.vecF32(static_cast<int>(vl));
  const float lowest = std::numeric_limits<float>::lowest();
  const int64_t in_full = w.in_w / vl, in_tail = w.in_w % vl;
  const int64_t out_tail = w.out_w - (out_vectors - 1) * vl;
  std::vector<int> pick;  // lanes 0, stride, 2 * stride, ...
  for (int64_t j = 0; j < vl; ++j) pick.push_back(static_cast<int>(j * w.stride_w));

  e.parallelFor(planes, [&](Value* plane) {
    Value* X = e.tensor(x_slot, e.f32());
    Value* Y = e.tensor(y_slot, e.f32());
    Value* buf = e.threadWorkspace(0, buffer * 4, e.f32());
    Value* low = b.CreateVectorSplat(vl, e.cf(lowest));
    // The columns outside the plane, once per plane (the passes never write them).
    e.loop(0, buffer, [&](Value* i) { e.storeAt(e.cf(lowest), buf, i); });
    Value* x_plane = b.CreateMul(plane, e.c64(w.in_h * w.in_w));
    Value* y_plane = b.CreateMul(plane, e.c64(w.out_h * w.out_w));
    Value* in_mask = laneMask(b, vl, in_tail);
    Value* out_mask = laneMask(b, vl, out_tail);
    e.loop(0, w.out_h, [&](Value* oh) {
      // Vertical pass: the buffer's plane columns start at the lowest value
      // and take the max of each window row inside the plane.
      e.loop(0, in_full,
             [&](Value* u) { e.storeVec(low, buf, b.CreateAdd(e.c64(w.pad_left), b.CreateMul(u, e.c64(vl)))); });
      if (in_tail) e.storeVec(low, buf, e.c64(w.pad_left + in_full * vl));
      Value* top = b.CreateSub(b.CreateMul(oh, e.c64(w.stride_h)), e.c64(w.pad_top));
      for (int64_t kh = 0; kh < w.k_h; ++kh) {
        Value* ih = b.CreateAdd(top, e.c64(kh));
        Value* inside = b.CreateAnd(b.CreateICmpSGE(ih, e.c64(0)), b.CreateICmpSLT(ih, e.c64(w.in_h)));
        e.when(inside, [&] {
          Value* row = b.CreateAdd(x_plane, b.CreateMul(ih, e.c64(w.in_w)));
          e.loop(0, in_full, [&](Value* u) {
            Value* col = b.CreateMul(u, e.c64(vl));
            Value* at = b.CreateAdd(e.c64(w.pad_left), col);
            e.storeVec(maxOf(b, e.loadVec(buf, at, vl), e.loadVec(X, b.CreateAdd(row, col), vl)), buf, at);
          });
          if (in_tail) {
            Value* at = e.c64(w.pad_left + in_full * vl);
            Value* xp = b.CreateBitCast(e.at(X, b.CreateAdd(row, e.c64(in_full * vl))), vt->getPointerTo());
            Value* v = b.CreateMaskedLoad(vt, xp, Align(4), in_mask, low);
            Value* cur = e.loadVec(buf, at, vl);
            // Lanes past the plane keep the lowest value: the masked load gives it.
            e.storeVec(maxOf(b, cur, v), buf, at);
          }
        });
      }
      // Horizontal pass.
      Value* out_row = b.CreateAdd(y_plane, b.CreateMul(oh, e.c64(w.out_w)));
      for (int64_t u = 0; u < out_vectors; ++u) {
        Value* acc = low;
        for (int64_t kw = 0; kw < w.k_w; ++kw) {
          Value* wide = e.loadVec(buf, e.c64(u * vl * w.stride_w + kw), static_cast<int>(vl * w.stride_w));
          Value* v = w.stride_w == 1 ? wide : b.CreateShuffleVector(wide, pick);
          acc = maxOf(b, acc, v);
        }
        Value* at = b.CreateAdd(out_row, e.c64(u * vl));
        if (u + 1 < out_vectors || out_tail == vl)
          e.storeVec(acc, Y, at);
        else
          b.CreateMaskedStore(acc, b.CreateBitCast(e.at(Y, at), vt->getPointerTo()), Align(4), out_mask);
      }
    });
  });
  e.finish();
}

}  // namespace vdla::cpu
