// Pooling: MaxPool (f32, i8, u8) and AveragePool (f32) over 1-D/2-D windows, one plane
// (image, channel) per parallel index, every tap unrolled at compile time and
// its bounds check turned into a select on a clamped, always-valid load; and
// GlobalAveragePool / GlobalMaxPool as per-plane reductions, which LLVM
// vectorises because their sums may be reassociated.
#include <cmath>
#include <limits>

#include "step_builder.h"

namespace vdla::cpu {

using namespace llvm;

void emitPool(StepBuilder& s) {
  const std::string& op = s.node().op();
  const bool is_max = op == "MaxPool";
  // Integer MaxPool selects elements, so an int8 tensor keeps its scale.
  const rt::DType dtype = s.inputType(0).dtype;
  const bool is_int = dtype == rt::DType::I8 || dtype == rt::DType::U8;
  if (is_max && is_int) {
    if (s.outputType().dtype != dtype) s.fail("output must have the input's element type");
  } else {
    s.requireF32();
  }
  const bool is_signed = dtype == rt::DType::I8;
  if (s.outputs().size() > 1) s.fail("the Indices output of MaxPool is not supported");
  if (s.node().attrs().getInt("storage_order", 0) != 0) s.fail("attribute 'storage_order' = 1 is not supported");
  const rt::Shape& x = s.inputType(0).shape;
  const rt::Shape& y = s.outputType().shape;
  const std::vector<int64_t> kernel = s.node().attrs().getInts("kernel_shape");
  if (kernel.size() != x.size() - 2) s.fail("attribute 'kernel_shape' must have one value per spatial dimension");
  const Window2 w = resolveWindow2(s, x, y, kernel.size() == 2 ? kernel[0] : 1, kernel.back());
  const bool include_pad = s.node().attrs().getInt("count_include_pad", 0) != 0;
  if (is_max && !is_int && kernel.size() == 2 && maxPoolRowsApplies(w)) {
    emitMaxPoolRows(s, w, x[0] * x[1]);
    return;
  }
  const int x_slot = s.useInput(0);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  const int64_t planes = x[0] * x[1];
  e.parallelFor(planes, [&](Value* plane) {
    Type* elem = is_int ? e.i8() : e.f32();
    Value* X = e.tensor(x_slot, elem);
    Value* Y = e.tensor(y_slot, elem);
    Value* x_plane = b.CreateMul(plane, e.c64(w.in_h * w.in_w));
    Value* y_plane = b.CreateMul(plane, e.c64(w.out_h * w.out_w));
    e.loop(0, w.out_h, [&](Value* oh) {
      e.loop(0, w.out_w, [&](Value* ow) {
        // The reference's starting value: the type's lowest, kept when no tap is inside.
        Value* acc =
            is_int ? e.b().getInt8(is_signed ? 0x80 : 0) : e.cf(is_max ? std::numeric_limits<float>::lowest() : 0.0f);
        Value* count = e.cf(0);
        Value* count_h = e.cf(0);
        Value* count_w = e.cf(0);
        for (int64_t kh = 0; kh < w.k_h; ++kh) {
          Value* ih =
              b.CreateAdd(b.CreateSub(b.CreateMul(oh, e.c64(w.stride_h)), e.c64(w.pad_top)), e.c64(kh * w.dil_h));
          Value* h_ok = b.CreateAnd(b.CreateICmpSGE(ih, e.c64(0)), b.CreateICmpSLT(ih, e.c64(w.in_h)));
          Value* h_in_pad =
              b.CreateAnd(b.CreateICmpSGE(ih, e.c64(-w.pad_top)), b.CreateICmpSLT(ih, e.c64(w.in_h + w.pad_bottom)));
          count_h = b.CreateFAdd(count_h, b.CreateSelect(h_in_pad, e.cf(1), e.cf(0)));
          for (int64_t kw = 0; kw < w.k_w; ++kw) {
            Value* iw =
                b.CreateAdd(b.CreateSub(b.CreateMul(ow, e.c64(w.stride_w)), e.c64(w.pad_left)), e.c64(kw * w.dil_w));
            Value* w_ok = b.CreateAnd(b.CreateICmpSGE(iw, e.c64(0)), b.CreateICmpSLT(iw, e.c64(w.in_w)));
            if (kh == 0) {
              Value* w_in_pad = b.CreateAnd(b.CreateICmpSGE(iw, e.c64(-w.pad_left)),
                                            b.CreateICmpSLT(iw, e.c64(w.in_w + w.pad_right)));
              count_w = b.CreateFAdd(count_w, b.CreateSelect(w_in_pad, e.cf(1), e.cf(0)));
            }
            Value* ok = b.CreateAnd(h_ok, w_ok);
            Value* at = b.CreateAdd(x_plane, b.CreateAdd(b.CreateMul(b.CreateSelect(h_ok, ih, e.c64(0)), e.c64(w.in_w)),
                                                         b.CreateSelect(w_ok, iw, e.c64(0))));
            Value* v = e.loadAt(elem, X, at);
            if (is_max) {
              Value* greater = !is_int     ? b.CreateFCmpOGT(v, acc)
                               : is_signed ? b.CreateICmpSGT(v, acc)
                                           : b.CreateICmpUGT(v, acc);
              acc = b.CreateSelect(b.CreateAnd(ok, greater), v, acc);
            } else {
              acc = b.CreateFAdd(acc, b.CreateSelect(ok, v, e.cf(0)));
              count = b.CreateFAdd(count, b.CreateSelect(ok, e.cf(1), e.cf(0)));
            }
          }
        }
        if (!is_max) {
          if (include_pad) count = b.CreateFMul(count_h, count_w);
          acc = b.CreateSelect(b.CreateFCmpOGT(count, e.cf(0)), b.CreateFDiv(acc, count), e.cf(0));
        }
        e.storeAt(acc, Y, b.CreateAdd(y_plane, b.CreateAdd(b.CreateMul(oh, e.c64(w.out_w)), ow)));
      });
    });
  });
  e.finish();
}

void emitGlobalPool(StepBuilder& s) {
  s.requireF32();
  const bool is_max = s.node().op() == "GlobalMaxPool";
  const rt::Shape& x = s.inputType(0).shape;
  if (x.size() < 3) s.fail("input must have rank >= 3");
  const int64_t planes = x[0] * x[1], size = rt::numElements(x) / std::max<int64_t>(planes, 1);
  const int x_slot = s.useInput(0);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  e.parallelFor(
      planes,
      [&](Value* plane) {
        Value* X = e.tensor(x_slot, e.f32());
        Value* base = b.CreateMul(plane, e.c64(size));
        FastMathFlags fmf;
        fmf.setAllowReassoc();  // lets LLVM vectorise the reduction; the order differs only by rounding
        IRBuilder<>::FastMathFlagGuard guard(b);
        b.setFastMathFlags(fmf);
        std::vector<Value*> r =
            e.loopCarry(size, {e.cf(is_max ? -INFINITY : 0.0f)}, [&](Value* i, const std::vector<Value*>& acc) {
              Value* v = e.loadAt(e.f32(), X, b.CreateAdd(base, i));
              if (is_max) return std::vector<Value*>{e.intrinsic(Intrinsic::maxnum, {acc[0], v})};
              return std::vector<Value*>{b.CreateFAdd(acc[0], v)};
            });
        Value* out = is_max ? r[0] : b.CreateFDiv(r[0], e.cf(static_cast<float>(size)));
        e.storeAt(out, e.tensor(y_slot, e.f32()), plane);
      },
      planes * size >= (1 << 15));
  e.finish();
}

}  // namespace vdla::cpu
