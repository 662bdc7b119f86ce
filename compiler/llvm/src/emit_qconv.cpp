// vdla.QConv (semantics in vdla/runtime/qconv_attributes.h), bit for bit as
// the reference kernel: the accelerator's integer convolution when it runs on
// the CPU (the CPU fallback of target "vdla", or an int8 graph on target
// "llvm"). The layout follows the fp32 Conv: weights packed at compile time
// into [group][M/MR][K][MR] int8 blocks, the input unfolded at run time into
// int8 panels [image*group][P/NR][K][NR] whose padding holds x_zero_point,
// and an MR x NR micro-kernel of 32-bit lanes. Every addition and
// multiplication is a plain LLVM add/mul, which wraps in two's complement as
// the definition requires; int8 x int8 products are exact in 32 bits.
//
// rshr(v, s) = floor((v + 2^(s-1)) / 2^s) needs 33 bits as written; it is
// computed as (v >> s) + ((v >> (s-1)) & 1): with v = q*2^s + r, the first
// term is q and the second is 1 exactly when r >= 2^(s-1).
#include <algorithm>
#include <stdexcept>

#include "step_builder.h"
#include "vdla/runtime/qconv_attributes.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

// `scalar` as a value of the shape of `like` (a splat when it is a vector).
Value* like(StepEmitter& e, Value* like_value, Value* scalar) {
  if (auto* vt = dyn_cast<FixedVectorType>(like_value->getType()))
    return e.b().CreateVectorSplat(vt->getNumElements(), scalar);
  return scalar;
}

Value* roundingShiftRight(StepEmitter& e, Value* v, int shift) {
  if (shift == 0) return v;
  IRBuilder<>& b = e.b();
  Value* q = b.CreateAShr(v, like(e, v, e.c32(shift)));
  Value* half = b.CreateAnd(b.CreateAShr(v, like(e, v, e.c32(shift - 1))), like(e, v, e.c32(1)));
  return b.CreateAdd(q, half);
}

struct Requant {
  const rt::QConvAttributes* q;
  Value *bias1, *mult, *bias2, *residual_mult;  // i32 scalars of one output channel
};

// The float form: fl(fl(t) * s) rounded half to even, plus the zero point.
// sitofp and fmul round to nearest even on every target's vector unit (SSE,
// AVX, NEON); the product, clamped to +-2^16 (beyond that the int8 result is
// saturated anyway), is rounded to an integer by adding and subtracting
// 1.5 * 2^23, which is exact half-to-even rounding for |x| < 2^22 without a
// rounding instruction that armv7 NEON lacks. No fast-math flags: the two
// additions must not be folded.
Value* floatRequantize(StepEmitter& e, Value* t, Value* scale_bits, int32_t y_zero_point) {
  IRBuilder<>& b = e.b();
  Type* f32 = b.getFloatTy();
  Type* ft = t->getType()->isVectorTy()
                 ? static_cast<Type*>(FixedVectorType::get(f32, cast<FixedVectorType>(t->getType())->getNumElements()))
                 : f32;
  auto splat = [&](float x) { return like(e, t, ConstantFP::get(f32, x)); };
  Value* product = b.CreateFMul(b.CreateSIToFP(t, ft), like(e, t, b.CreateBitCast(scale_bits, f32)));
  product = b.CreateSelect(b.CreateFCmpOLT(product, splat(-65536.0f)), splat(-65536.0f), product);
  product = b.CreateSelect(b.CreateFCmpOGT(product, splat(65536.0f)), splat(65536.0f), product);
  Value* rounded = b.CreateFSub(b.CreateFAdd(product, splat(12582912.0f)), splat(12582912.0f));
  return b.CreateAdd(b.CreateFPToSI(rounded, t->getType()), like(e, t, e.c32(y_zero_point)));
}

// acc (i32 scalar or vector) -> int8 output, residual r (i8, same shape) or null.
Value* requantize(StepEmitter& e, Value* acc, const Requant& p, Value* r) {
  IRBuilder<>& b = e.b();
  Value* v = nullptr;
  Type* wide = acc->getType()->isVectorTy()
                   ? static_cast<Type*>(
                         FixedVectorType::get(b.getInt64Ty(), cast<FixedVectorType>(acc->getType())->getNumElements()))
                   : static_cast<Type*>(b.getInt64Ty());
  // wide_product: a residual joins the accumulator (in its units, with
  // residual_shift fractional bits rounded away in 64 bits) before the bias.
  if (p.q->wide_product && r) {
    if (p.q->residual_shift == 0) {
      acc = b.CreateAdd(acc, b.CreateMul(b.CreateSExt(r, acc->getType()), like(e, acc, p.residual_mult)));
    } else {
      Value* rp = b.CreateMul(b.CreateSExt(r, wide), b.CreateSExt(like(e, acc, p.residual_mult), wide));
      Value* half = like(e, rp, b.getInt64(int64_t{1} << (p.q->residual_shift - 1)));
      rp = b.CreateAShr(b.CreateAdd(rp, half), like(e, rp, b.getInt64(p.q->residual_shift)));
      acc = b.CreateAdd(acc, b.CreateTrunc(rp, acc->getType()));
    }
  }
  Value* t = roundingShiftRight(e, b.CreateAdd(acc, like(e, acc, p.bias1)), p.q->shift1);
  if (p.q->float_requant) {
    v = floatRequantize(e, t, p.mult, p.q->y_zero_point);  // shift1 is 0
  } else if (p.q->wide_product) {
    // The product and its shift in 64-bit lanes, then the low 32 bits.
    Value* prod = b.CreateMul(b.CreateSExt(t, wide), b.CreateSExt(like(e, acc, p.mult), wide));
    if (p.q->shift2 > 0) {
      Value* half = b.CreateShl(like(e, prod, b.getInt64(1)), like(e, prod, b.getInt64(p.q->shift2 - 1)));
      prod = b.CreateAShr(b.CreateAdd(prod, half), like(e, prod, b.getInt64(p.q->shift2)));
    }
    v = b.CreateTrunc(prod, acc->getType());
  } else {
    Value* u = b.CreateAdd(b.CreateMul(t, like(e, acc, p.mult)), like(e, acc, p.bias2));
    if (r) u = b.CreateAdd(u, b.CreateMul(b.CreateSExt(r, acc->getType()), like(e, acc, p.residual_mult)));
    v = roundingShiftRight(e, u, p.q->shift2);
  }
  Value* lo = like(e, v, e.c32(p.q->clip_lo));
  Value* hi = like(e, v, e.c32(p.q->clip_hi));
  v = b.CreateSelect(b.CreateICmpSLT(v, lo), lo, v);
  v = b.CreateSelect(b.CreateICmpSGT(v, hi), hi, v);
  Type* out =
      acc->getType()->isVectorTy()
          ? static_cast<Type*>(FixedVectorType::get(e.i8(), cast<FixedVectorType>(acc->getType())->getNumElements()))
          : e.i8();
  return b.CreateTrunc(v, out);
}

void requireInput(const StepBuilder& s, size_t i, rt::DType dtype, const char* what, bool constant) {
  const rt::TensorType& t = s.inputType(i);
  if (t.dtype != dtype)
    s.fail(std::string(what) + " '" + s.node().input(i)->name() + "' must be " + rt::dtypeName(dtype) + ", got " +
           rt::dtypeName(t.dtype));
  if (constant && !s.node().input(i)->isConstant())
    s.fail(std::string(what) + " '" + s.node().input(i)->name() + "' must be a constant for this target");
}

}  // namespace

void emitQConv(StepBuilder& s) {
  rt::QConvAttributes q;
  try {
    q = rt::readQConvAttributes(s.node().attrs());
  } catch (const std::exception& e) {
    s.fail(e.what());
  }
  requireInput(s, 0, rt::DType::I8, "input X", false);
  requireInput(s, 1, rt::DType::I8, "weights W", true);
  requireInput(s, 2, rt::DType::I32, "bias1", true);
  requireInput(s, 3, rt::DType::I32, "mult", true);
  requireInput(s, 4, rt::DType::I32, "bias2", true);
  if (s.node().input(7)) s.fail("a fused 1x1 expansion (inputs 7-10) has no CPU code; the reference kernel runs it");
  const bool residual = s.node().input(5) != nullptr;
  if (residual != (s.node().input(6) != nullptr)) s.fail("R and residual_mult must be given together");
  if (q.post_add) s.fail("post_add (a fused quantised addition) has no CPU code; the reference kernel runs it");
  if (residual && q.float_requant) s.fail("float_requant takes no residual R");
  if (residual) {
    requireInput(s, 5, rt::DType::I8, "residual R", false);
    requireInput(s, 6, rt::DType::I32, "residual_mult", true);
  }
  if (s.outputType().dtype != rt::DType::I8) s.fail("output must be i8");
  const rt::Shape& x = s.inputType(0).shape;
  const rt::Shape& wshape = s.inputType(1).shape;
  const rt::Shape& y = s.outputType().shape;
  if (x.size() != 4 || wshape.size() != 4 || y.size() != 4)
    s.fail("input, weights and output must be 4-D, got " + rt::shapeToString(x) + ", " + rt::shapeToString(wshape));
  const int64_t group = q.group, batch = x[0], channels = x[1], out_channels = wshape[0];
  if (channels != wshape[1] * group || out_channels % group != 0 || y[1] != out_channels)
    s.fail("channels of input " + rt::shapeToString(x) + " and weights " + rt::shapeToString(wshape) +
           " do not fit group " + std::to_string(group));
  for (size_t i : {2, 3, 4})
    if (s.inputType(i).numElements() != out_channels)
      s.fail("per-channel vectors must have one value per output channel");
  if (residual && (s.inputType(5).shape != y || s.inputType(6).numElements() != out_channels))
    s.fail("residual R must have the output's shape and residual_mult one value per output channel");
  const int64_t k_h = wshape[2], k_w = wshape[3], out_h = y[2], out_w = y[3], in_h = x[2], in_w = x[3];

  const int64_t cg = channels / group, mg = out_channels / group;
  const int64_t kdim = cg * k_h * k_w, positions = out_h * out_w;
  const TargetTuning& tune = s.tuning();
  const int64_t mr = std::min<int64_t>(tune.gemm_rows, mg), vl = tune.vector_width, nv = tune.gemm_vectors;
  const int64_t nr = vl * nv;
  const int64_t mblocks = (mg + mr - 1) / mr, pblocks = (positions + nr - 1) / nr;

  // Weights [M][K] -> [g][mb][k][mr] (rows past M are zero); the four
  // per-channel vectors side by side in one table [4][O].
  const int8_t* wsrc = s.node().input(1)->constant().data<int8_t>();
  rt::Tensor packed(rt::DType::I8, {group * mblocks * kdim * mr});
  int8_t* pw = packed.data<int8_t>();
  std::fill(pw, pw + packed.numElements(), int8_t{0});
  for (int64_t g = 0; g < group; ++g)
    for (int64_t m = 0; m < mg; ++m)
      for (int64_t k = 0; k < kdim; ++k)
        pw[((g * mblocks + m / mr) * kdim + k) * mr + m % mr] = wsrc[(g * mg + m) * kdim + k];
  rt::Tensor table(rt::DType::I32, {4, out_channels});
  int32_t* tp = table.data<int32_t>();
  for (int i = 0; i < 4; ++i)
    for (int64_t o = 0; o < out_channels; ++o)
      tp[i * out_channels + o] = i < 3 ? s.node().input(2 + i)->constant().data<int32_t>()[o]
                                       : (residual ? s.node().input(6)->constant().data<int32_t>()[o] : 0);

  const int x_slot = s.useInput(0);
  const int r_slot = residual ? s.useInput(5) : -1;
  const int w_slot = s.addConstant("packed_weights", packed);
  const int t_slot = s.addConstant("requant", table);
  const int64_t panel_bytes = pblocks * kdim * nr;
  s.setWorkspace(batch * group * panel_bytes, 0);

  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  const int64_t sh = q.stride[0], sw = q.stride[1], dh = q.dilation[0], dw = q.dilation[1];

  // Phase 1: im2col into int8 panels, one (image, group, k) row per index.
  e.parallelFor(batch * group * kdim, [&](Value* row) {
    Value* X = e.tensor(x_slot, e.i8());
    Value* panels = e.sharedWorkspace(e.i8());
    Value* zp = b.getInt8(static_cast<uint8_t>(q.x_zero_point));
    Value* ng = b.CreateSDiv(row, e.c64(kdim));
    Value* k = b.CreateSRem(row, e.c64(kdim));
    Value* n = b.CreateSDiv(ng, e.c64(group));
    Value* g = b.CreateSRem(ng, e.c64(group));
    Value* c = b.CreateAdd(b.CreateMul(g, e.c64(cg)), b.CreateSDiv(k, e.c64(k_h * k_w)));
    Value* kh = b.CreateSRem(b.CreateSDiv(k, e.c64(k_w)), e.c64(k_h));
    Value* kw = b.CreateSRem(k, e.c64(k_w));
    Value* x_plane = b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(channels)), c), e.c64(in_h * in_w));
    Value* panel_base = b.CreateMul(ng, e.c64(panel_bytes));
    auto dest = [&](Value* p) {
      Value* pb = b.CreateSDiv(p, e.c64(nr));
      Value* lane = b.CreateSRem(p, e.c64(nr));
      return b.CreateAdd(panel_base,
                         b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(pb, e.c64(kdim)), k), e.c64(nr)), lane));
    };
    e.loop(0, out_h, [&](Value* oh) {
      Value* ih = b.CreateAdd(b.CreateSub(b.CreateMul(oh, e.c64(sh)), e.c64(q.pads[0])), b.CreateMul(kh, e.c64(dh)));
      Value* row_ok = b.CreateAnd(b.CreateICmpSGE(ih, e.c64(0)), b.CreateICmpSLT(ih, e.c64(in_h)));
      Value* src_row = b.CreateAdd(x_plane, b.CreateMul(b.CreateSelect(row_ok, ih, e.c64(0)), e.c64(in_w)));
      Value* iw0 = b.CreateSub(b.CreateMul(kw, e.c64(dw)), e.c64(q.pads[1]));
      e.loop(0, out_w, [&](Value* ow) {
        Value* iw = b.CreateAdd(b.CreateMul(ow, e.c64(sw)), iw0);
        Value* ok = b.CreateAnd(row_ok, b.CreateAnd(b.CreateICmpSGE(iw, e.c64(0)), b.CreateICmpSLT(iw, e.c64(in_w))));
        Value* v = e.loadAt(e.i8(), X, b.CreateAdd(src_row, b.CreateSelect(ok, iw, e.c64(0))));
        e.storeAt(b.CreateSelect(ok, v, zp), panels, dest(b.CreateAdd(b.CreateMul(oh, e.c64(out_w)), ow)));
      });
    });
    if (pblocks * nr > positions)  // columns past the last position: any value, never stored
      e.loop(positions, pblocks * nr, [&](Value* p) { e.storeAt(zp, panels, dest(p)); });
  });

  // Phase 2: one MR x NR tile of 32-bit sums per index, MR blocks innermost.
  VectorType* v32 = FixedVectorType::get(e.i32(), static_cast<unsigned>(vl));
  e.parallelFor(batch * group * pblocks * mblocks, [&](Value* t) {
    Value* panels = e.sharedWorkspace(e.i8());
    Value* wp = e.tensor(w_slot, e.i8());
    Value* tab = e.tensor(t_slot, e.i32());
    Value* Y = e.tensor(y_slot, e.i8());
    Value* R = residual ? e.tensor(r_slot, e.i8()) : nullptr;
    Value* mb = b.CreateSRem(t, e.c64(mblocks));
    Value* pall = b.CreateSDiv(t, e.c64(mblocks));
    Value* pb = b.CreateSRem(pall, e.c64(pblocks));
    Value* ng = b.CreateSDiv(pall, e.c64(pblocks));
    Value* n = b.CreateSDiv(ng, e.c64(group));
    Value* g = b.CreateSRem(ng, e.c64(group));
    Value* w_base = b.CreateMul(b.CreateAdd(b.CreateMul(g, e.c64(mblocks)), mb), e.c64(kdim * mr));
    Value* b_base = b.CreateAdd(b.CreateMul(ng, e.c64(panel_bytes)), b.CreateMul(pb, e.c64(kdim * nr)));
    std::vector<Value*> init(mr * nv, Constant::getNullValue(v32));
    std::vector<Value*> acc = e.loopCarry(kdim, init, [&](Value* k, const std::vector<Value*>& sums) {
      std::vector<Value*> next(sums.size());
      Value* bk = b.CreateAdd(b_base, b.CreateMul(k, e.c64(nr)));
      std::vector<Value*> cols;
      for (int64_t v = 0; v < nv; ++v)
        cols.push_back(b.CreateSExt(e.loadVec(panels, b.CreateAdd(bk, e.c64(v * vl)), vl), v32));
      Value* wk = b.CreateAdd(w_base, b.CreateMul(k, e.c64(mr)));
      for (int64_t r = 0; r < mr; ++r) {
        Value* wv = b.CreateVectorSplat(vl, b.CreateSExt(e.loadAt(e.i8(), wp, b.CreateAdd(wk, e.c64(r))), e.i32()));
        for (int64_t v = 0; v < nv; ++v) next[r * nv + v] = b.CreateAdd(sums[r * nv + v], b.CreateMul(wv, cols[v]));
      }
      return next;
    });
    const int64_t last_cols = positions - (pblocks - 1) * nr;
    for (int64_t r = 0; r < mr; ++r) {
      Value* m = b.CreateAdd(b.CreateMul(mb, e.c64(mr)), e.c64(r));
      auto store_row = [&] {
        Value* oc = b.CreateAdd(b.CreateMul(g, e.c64(mg)), m);
        Requant p{&q, nullptr, nullptr, nullptr, nullptr};
        p.bias1 = e.loadAt(e.i32(), tab, oc);
        p.mult = e.loadAt(e.i32(), tab, b.CreateAdd(oc, e.c64(out_channels)));
        p.bias2 = e.loadAt(e.i32(), tab, b.CreateAdd(oc, e.c64(2 * out_channels)));
        p.residual_mult = e.loadAt(e.i32(), tab, b.CreateAdd(oc, e.c64(3 * out_channels)));
        Value* row_base =
            b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(out_channels)), oc), e.c64(positions)),
                        b.CreateMul(pb, e.c64(nr)));
        auto full = [&] {
          for (int64_t v = 0; v < nv; ++v) {
            Value* at = b.CreateAdd(row_base, e.c64(v * vl));
            e.storeVec(requantize(e, acc[r * nv + v], p, R ? e.loadVec(R, at, vl) : nullptr), Y, at);
          }
        };
        auto partial = [&] {
          for (int64_t j = 0; j < last_cols; ++j) {
            Value* at = b.CreateAdd(row_base, e.c64(j));
            Value* sum = b.CreateExtractElement(acc[r * nv + j / vl], j % vl);
            e.storeAt(requantize(e, sum, p, R ? e.loadAt(e.i8(), R, at) : nullptr), Y, at);
          }
        };
        if (last_cols == nr) {
          full();
        } else {
          Value* is_last = b.CreateICmpEQ(pb, e.c64(pblocks - 1));
          e.when(b.CreateNot(is_last), full);
          e.when(is_last, partial);
        }
      };
      if (mg % mr == 0)
        store_row();
      else
        e.when(b.CreateICmpSLT(m, e.c64(mg)), store_row);
    }
  });
  e.finish();
}

}  // namespace vdla::cpu
