// Quantisation operators, bit for bit as the reference kernels
// (runtime/src/kernels/reference/quantize.cpp and pool.cpp), which compute
// in float as onnxruntime does: QuantizeLinear, DequantizeLinear (per tensor
// or per axis), com.microsoft.QLinearAdd and
// com.microsoft.QLinearGlobalAveragePool. Exactness rests on doing the same
// float operations in the same order: a true division by the scale (never a
// multiplication by its reciprocal), round half to even (the default rounding
// mode, see quantizeValue), the zero point added as a float, explicit fma where
// the reference calls std::fma, and compile-time constants computed with the
// reference's own expressions. Scales and zero points must be constants.
#include <cmath>
#include <limits>

#include "step_builder.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

bool isQuantType(rt::DType t) { return t == rt::DType::I8 || t == rt::DType::U8; }

Type* elemType(StepEmitter& e, rt::DType t) {
  switch (t) {
    case rt::DType::F32: return e.f32();
    case rt::DType::I8:
    case rt::DType::U8: return e.i8();
    case rt::DType::I32: return e.i32();
    default: throw std::logic_error("elemType: unexpected element type");
  }
}

// An element of an integer tensor as i32 (u8 zero-extended, i8 sign-extended).
Value* toI32(StepEmitter& e, Value* v, rt::DType t) {
  if (t == rt::DType::U8) return e.b().CreateZExt(v, e.i32());
  if (t == rt::DType::I8) return e.b().CreateSExt(v, e.i32());
  return v;
}

// The constant input i as floats (a scale: f32, 1 or `count` values).
std::vector<float> constantScales(const StepBuilder& s, size_t i, const char* what, int64_t count) {
  const ir::Value* v = s.node().input(i);
  if (!v) s.fail(std::string(what) + " is missing");
  if (!v->isConstant()) s.fail(std::string(what) + " '" + v->name() + "' must be a constant for this target");
  const rt::Tensor& t = v->constant();
  if (t.dtype() != rt::DType::F32) s.fail(std::string(what) + " must be f32");
  if (t.numElements() != 1 && t.numElements() != count)
    s.fail(std::string(what) + " has " + std::to_string(t.numElements()) + " values, expected 1 or " +
           std::to_string(count));
  return t.toVector<float>();
}

// A constant zero point as int32 values ({0} when the optional input is missing).
std::vector<int32_t> constantZeroPoints(const StepBuilder& s, size_t i, const char* what, int64_t count) {
  const ir::Value* v = i < s.node().numInputs() ? s.node().input(i) : nullptr;
  if (!v) return {0};
  if (!v->isConstant()) s.fail(std::string(what) + " '" + v->name() + "' must be a constant for this target");
  const rt::Tensor& t = v->constant();
  if (t.numElements() != 1 && t.numElements() != count)
    s.fail(std::string(what) + " has " + std::to_string(t.numElements()) + " values, expected 1 or " +
           std::to_string(count));
  std::vector<int32_t> out(static_cast<size_t>(t.numElements()));
  for (size_t k = 0; k < out.size(); ++k) {
    switch (t.dtype()) {
      case rt::DType::I8: out[k] = t.data<int8_t>()[k]; break;
      case rt::DType::U8: out[k] = t.data<uint8_t>()[k]; break;
      case rt::DType::I32: out[k] = t.data<int32_t>()[k]; break;
      default: s.fail(std::string(what) + " must be i8, u8 or i32");
    }
  }
  return out;
}

// saturate<T>(nearbyint(v) + zp) of the reference, on a float or a vector of
// floats: NaN and values below the range give its lowest value. The rounding
// is (v + 1.5*2^23) - 1.5*2^23, two float additions in the default rounding
// mode: exactly nearbyint for |v| < 2^22, and any larger v saturates either
// way. Cores without a rounding instruction (the Cortex-A9's VFPv3) would
// otherwise call libm's nearbyintf for every element.
Value* roundHalfEven(StepEmitter& e, Value* v) {
  const float magic = 12582912.0f;  // 1.5 * 2^23
  Constant* m = ConstantFP::get(v->getType(), magic);
  return e.b().CreateFSub(e.b().CreateFAdd(v, m), m);
}

// Clamps a rounded value plus its zero point to the output type's range and
// converts it (a float or a vector of floats to i8 or <N x i8>).
Value* saturate(StepEmitter& e, Value* v, rt::DType out) {
  IRBuilder<>& b = e.b();
  const bool is_signed = out == rt::DType::I8;
  Type* t = v->getType();
  Constant* lo = ConstantFP::get(t, is_signed ? -128.0 : 0.0);
  Constant* hi = ConstantFP::get(t, is_signed ? 127.0 : 255.0);
  Value* clamped = b.CreateSelect(b.CreateFCmpOGE(v, lo), v, lo);
  clamped = b.CreateSelect(b.CreateFCmpOGE(v, hi), hi, clamped);
  auto* vt = dyn_cast<FixedVectorType>(t);
  Type* i32 = vt ? static_cast<Type*>(FixedVectorType::get(e.i32(), vt->getNumElements())) : e.i32();
  Type* i8 = vt ? static_cast<Type*>(FixedVectorType::get(e.i8(), vt->getNumElements())) : e.i8();
  return b.CreateTrunc(b.CreateFPToSI(clamped, i32), i8);
}

Value* quantizeValue(StepEmitter& e, Value* v, Value* zp_float, rt::DType out) {
  return saturate(e, e.b().CreateFAdd(roundHalfEven(e, v), zp_float), out);
}

// Per-tensor or per-axis parameters: (i / inner) % size is element i's index.
struct Axis {
  bool per_axis = false;
  int64_t inner = 1, size = 1;
};

Axis resolveAxis(const StepBuilder& s, const rt::Shape& x, size_t scale_input) {
  if (s.node().attrs().getInt("block_size", 0) != 0)
    s.fail("attribute 'block_size' (blocked quantisation) is not supported");
  const rt::TensorType& scale = s.inputType(scale_input);
  Axis a;
  if (scale.numElements() == 1 && scale.shape.size() <= 1) return a;
  if (scale.shape.size() != 1) s.fail("a per-axis scale must be 1-D");
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = s.node().attrs().getInt("axis", 1);
  if (axis < -rank || axis >= rank) s.fail("attribute 'axis' is out of range");
  if (axis < 0) axis += rank;
  if (scale.numElements() != x[axis])
    s.fail("the scale has " + std::to_string(scale.numElements()) + " values, axis " + std::to_string(axis) + " has " +
           std::to_string(x[axis]));
  a.per_axis = true;
  a.size = x[axis];
  for (int64_t d = axis + 1; d < rank; ++d) a.inner *= x[d];
  return a;
}

// body(i, c) for every element i with its parameter index c (i64), rows of
// `inner` elements spread over the threads.
void axisLoop(StepEmitter& e, int64_t n, const Axis& a, const std::function<void(Value*, Value*)>& body) {
  IRBuilder<>& b = e.b();
  const int64_t inner = a.per_axis ? a.inner : std::min<int64_t>(n, 16384);
  if (n == 0 || inner == 0) return;
  const int64_t rows = (n + inner - 1) / inner;
  e.parallelFor(
      rows,
      [&](Value* row) {
        Value* c = a.per_axis ? b.CreateSRem(row, e.c64(a.size)) : e.c64(0);
        Value* begin = b.CreateMul(row, e.c64(inner));
        Value* end = b.CreateAdd(begin, e.c64(inner));
        end = b.CreateSelect(b.CreateICmpSLT(end, e.c64(n)), end, e.c64(n));
        e.loop(begin, end, [&](Value* i) { body(i, c); });
      },
      rows > 1 && n >= 16384);
}

// A parameter as a compile-time constant (per tensor) or a table lookup.
struct Params {
  std::vector<float> scale;
  std::vector<int32_t> zp;
  int scale_slot = -1, zp_slot = -1;  // tables of per-axis values
};

Params addParams(StepBuilder& s, std::vector<float> scale, std::vector<int32_t> zp, const Axis& a) {
  Params p;
  if (a.per_axis) {
    rt::Tensor st(rt::DType::F32, {a.size}), zt(rt::DType::I32, {a.size});
    for (int64_t c = 0; c < a.size; ++c) {
      st.data<float>()[c] = scale.size() == 1 ? scale[0] : scale[c];
      zt.data<int32_t>()[c] = zp.size() == 1 ? zp[0] : zp[c];
    }
    p.scale_slot = s.addConstant("scales", st);
    p.zp_slot = s.addConstant("zero_points", zt);
  }
  p.scale = std::move(scale);
  p.zp = std::move(zp);
  return p;
}

Value* scaleAt(StepEmitter& e, const Params& p, Value* c) {
  return p.scale_slot < 0 ? e.cf(p.scale[0]) : e.loadAt(e.f32(), e.tensor(p.scale_slot, e.f32()), c);
}
Value* zpAt(StepEmitter& e, const Params& p, Value* c) {
  return p.zp_slot < 0 ? e.c32(p.zp[0]) : e.loadAt(e.i32(), e.tensor(p.zp_slot, e.i32()), c);
}

// Per-tensor quantisation of f32 without a division per element: the input
// of a network, which on a board's core is most of the host's CPU work (a
// VFP division costs the Cortex-A9 about 15 cycles, and NEON has none).
//
// q' = v * fl(1/s) differs from the reference's q = fl(v / s) by less than
// 2^-22 |q'| (three roundings of 2^-24 relative each). Where |q'| < 2^10
// and q' lies within 0.5 - 2^-12 of its nearest integer r, q lies strictly
// inside the same rounding interval: nearbyint(q) == r. Where |q'| >= 2^10,
// q and q' both saturate whatever the zero point (|zp| <= 255), and NaN and
// the infinities give what the reference gives. So one test per element,
// |q' - r| < 0.5 - 2^-12, computed beside the result (|q' - r| is exact,
// Sterbenz), decides; a chunk in which any element fails it is computed
// again with the reference's division. A NaN fails it too, so the fast path
// may clamp with min/max instructions that propagate NaN.
void emitReciprocalQuantize(StepEmitter& e, int x_slot, int y_slot, int64_t n, float scale, int32_t zp, rt::DType out) {
  IRBuilder<>& b = e.b();
  const int lanes = e.tuning().vector_width;
  const int64_t unroll = 4, iterations = 16, chunk = iterations * unroll * lanes;
  const int64_t row = 16384;  // elements per parallel task, a multiple of `chunk`
  const int64_t rows = (n + row - 1) / row;
  VectorType* vf = e.vecF32(lanes);
  VectorType* vi = FixedVectorType::get(e.i32(), lanes);
  VectorType* vb = FixedVectorType::get(e.i8(), lanes);
  auto splat = [&](float v) { return ConstantFP::get(vf, v); };
  const bool is_signed = out == rt::DType::I8;
  // saturate() for values known not to be NaN.
  const auto clampToI8 = [&](Value* v) {
    if (!e.tuning().nan_propagating_minmax) return saturate(e, v, out);
    v = e.intrinsic(Intrinsic::maximum, {v, splat(is_signed ? -128.0f : 0.0f)});
    v = e.intrinsic(Intrinsic::minimum, {v, splat(is_signed ? 127.0f : 255.0f)});
    return b.CreateTrunc(b.CreateFPToSI(v, vi), vb);
  };
  const auto exact = [&](Value* i) {
    Value* v = e.loadAt(e.f32(), e.tensor(x_slot, e.f32()), i);
    e.storeAt(quantizeValue(e, b.CreateFDiv(v, e.cf(scale)), e.cf(static_cast<float>(zp)), out),
              e.tensor(y_slot, e.i8()), i);
  };
  const auto fast = [&](Value* i) {  // returns the lanes that fail the test (all ones)
    Value* q = b.CreateFMul(e.loadVec(e.tensor(x_slot, e.f32()), i, lanes), splat(1.0f / scale));
    Value* rounded = roundHalfEven(e, q);
    Value* distance = e.intrinsic(Intrinsic::fabs, {b.CreateFSub(q, rounded)});
    Value* safe = b.CreateFCmpOLT(distance, splat(0.5f - 1.0f / (1 << 12)));
    e.storeVec(clampToI8(b.CreateFAdd(rounded, splat(static_cast<float>(zp)))), e.tensor(y_slot, e.i8()), i);
    return b.CreateSExt(b.CreateNot(safe), vi);
  };
  e.parallelFor(
      rows,
      [&](Value* r) {
        Value* begin = b.CreateMul(r, e.c64(row));
        Value* end = b.CreateAdd(begin, e.c64(row));
        end = b.CreateSelect(b.CreateICmpSLT(end, e.c64(n)), end, e.c64(n));
        Value* chunks = b.CreateSDiv(b.CreateSub(end, begin), e.c64(chunk));
        e.loop(e.c64(0), chunks, [&](Value* k) {
          Value* first = b.CreateAdd(begin, b.CreateMul(k, e.c64(chunk)));
          const auto body = [&](Value* j, const std::vector<Value*>& carried) {
            Value* failed = carried[0];
            Value* at = b.CreateAdd(first, b.CreateMul(j, e.c64(unroll * lanes)));
            for (int64_t u = 0; u < unroll; ++u) failed = b.CreateOr(failed, fast(b.CreateAdd(at, e.c64(u * lanes))));
            return std::vector<Value*>{failed};
          };
          Value* failed = e.loopCarry(iterations, {Constant::getNullValue(vi)}, body)[0];
          Value* any = b.CreateICmpNE(e.intrinsic(Intrinsic::vector_reduce_or, {failed}), e.c32(0));
          e.when(any, [&] { e.loop(first, b.CreateAdd(first, e.c64(chunk)), exact); });
        });
        e.loop(b.CreateAdd(begin, b.CreateMul(chunks, e.c64(chunk))), end, exact);
      },
      rows > 1);
}

}  // namespace

void emitQuantizeLinear(StepBuilder& s) {
  const rt::TensorType& x = s.inputType(0);
  const rt::DType out = s.outputType().dtype;
  if (x.dtype != rt::DType::F32 && x.dtype != rt::DType::I32) s.fail("input x must be f32 or i32");
  if (!isQuantType(out))
    s.fail(std::string("output type ") + rt::dtypeName(out) + " is not supported (supported: i8, u8)");
  if (s.outputType().shape != x.shape) s.fail("output shape differs from the input's");
  const Axis axis = resolveAxis(s, x.shape, 1);
  Params p = addParams(s, constantScales(s, 1, "y_scale", axis.size),
                       constantZeroPoints(s, 2, "y_zero_point", axis.size), axis);
  const int x_slot = s.useInput(0);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  const float reciprocal = 1.0f / p.scale[0];
  if (!axis.per_axis && x.dtype == rt::DType::F32 && std::isnormal(reciprocal)) {
    emitReciprocalQuantize(e, x_slot, y_slot, x.numElements(), p.scale[0], p.zp[0], out);
    e.finish();
    return;
  }
  axisLoop(e, x.numElements(), axis, [&](Value* i, Value* c) {
    Value* v = e.loadAt(elemType(e, x.dtype), e.tensor(x_slot, elemType(e, x.dtype)), i);
    if (x.dtype == rt::DType::I32) v = b.CreateSIToFP(v, e.f32());
    Value* zp = b.CreateSIToFP(zpAt(e, p, c), e.f32());
    e.storeAt(quantizeValue(e, b.CreateFDiv(v, scaleAt(e, p, c)), zp, out), e.tensor(y_slot, e.i8()), i);
  });
  e.finish();
}

void emitDequantizeLinear(StepBuilder& s) {
  const rt::TensorType& x = s.inputType(0);
  if (!isQuantType(x.dtype) && x.dtype != rt::DType::I32) s.fail("input x must be i8, u8 or i32");
  if (s.outputType().dtype != rt::DType::F32) s.fail("output y must be f32");
  if (s.outputType().shape != x.shape) s.fail("output shape differs from the input's");
  const Axis axis = resolveAxis(s, x.shape, 1);
  Params p = addParams(s, constantScales(s, 1, "x_scale", axis.size),
                       constantZeroPoints(s, 2, "x_zero_point", axis.size), axis);
  const int x_slot = s.useInput(0);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  axisLoop(e, x.numElements(), axis, [&](Value* i, Value* c) {
    Value* q = toI32(e, e.loadAt(elemType(e, x.dtype), e.tensor(x_slot, elemType(e, x.dtype)), i), x.dtype);
    Value* v = b.CreateFMul(b.CreateSIToFP(b.CreateSub(q, zpAt(e, p, c)), e.f32()), scaleAt(e, p, c));
    e.storeAt(v, e.tensor(y_slot, e.f32()), i);
  });
  e.finish();
}

void emitQLinearAdd(StepBuilder& s) {
  const rt::DType t = s.inputType(0).dtype;
  if (!isQuantType(t)) s.fail("input A must be u8 or i8");
  if (s.inputType(3).dtype != t || s.outputType().dtype != t) s.fail("A, B and C must have the same type");
  const float sa = constantScales(s, 1, "A_scale", 1)[0], sb = constantScales(s, 4, "B_scale", 1)[0];
  const float sc = constantScales(s, 6, "C_scale", 1)[0];
  const int32_t za = constantZeroPoints(s, 2, "A_zero_point", 1)[0],
                zb = constantZeroPoints(s, 5, "B_zero_point", 1)[0];
  const int32_t zc = constantZeroPoints(s, 7, "C_zero_point", 1)[0];
  // The reference's constants, with its expressions (see quantize.cpp); in
  // the unsigned domain on the uint8 values the int8 ones stand for.
  const bool unsigned_domain = s.node().attrs().getInt("unsigned_domain", 0) != 0;
  if (unsigned_domain && t != rt::DType::I8) s.fail("unsigned_domain needs int8 operands");
  const int32_t shift = unsigned_domain ? 128 : 0;
  const float ratio_a = sa / sc, ratio_b = sb / sc;
  const float fixed = static_cast<float>(zc + shift) -
                      (ratio_a * static_cast<float>(za + shift) + ratio_b * static_cast<float>(zb + shift));

  const rt::Shape& out = s.outputType().shape;
  auto strides = [&](const rt::Shape& in) {
    if (in.size() > out.size()) s.fail("cannot broadcast " + rt::shapeToString(in) + " to " + rt::shapeToString(out));
    const std::vector<int64_t> rm = rt::rowMajorStrides(in);
    std::vector<int64_t> st(out.size(), 0);
    const size_t off = out.size() - in.size();
    for (size_t d = 0; d < in.size(); ++d) {
      if (in[d] != out[d + off] && in[d] != 1)
        s.fail("cannot broadcast " + rt::shapeToString(in) + " to " + rt::shapeToString(out));
      st[d + off] = in[d] == 1 ? 0 : rm[d];
    }
    return st;
  };
  const std::vector<int64_t> sta = strides(s.inputType(0).shape), stb = strides(s.inputType(3).shape);
  const int a_slot = s.useInput(0), b_slot = s.useInput(3);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  auto element = [&](Value* ia, Value* ib, Value* i) {
    auto operand = [&](int slot, Value* at) {
      Value* q = toI32(e, e.loadAt(e.i8(), e.tensor(slot, e.i8()), at), t);
      return b.CreateSIToFP(unsigned_domain ? b.CreateAdd(q, e.c32(shift)) : q, e.f32());
    };
    Value* qa = operand(a_slot, ia);
    Value* qb = operand(b_slot, ib);
    Value* v = e.intrinsic(Intrinsic::fma, {qb, e.cf(ratio_b), e.cf(fixed)});
    v = e.intrinsic(Intrinsic::fma, {qa, e.cf(ratio_a), v});
    if (!unsigned_domain) {
      e.storeAt(quantizeValue(e, v, e.cf(0), t), e.tensor(y_slot, e.i8()), i);
      return;
    }
    // The uint8 result's bits, flipped at the top: the int8 value 128 lower.
    Value* u8 = quantizeValue(e, v, e.cf(0), rt::DType::U8);
    e.storeAt(b.CreateXor(u8, ConstantInt::get(u8->getType(), 0x80)), e.tensor(y_slot, e.i8()), i);
  };
  const int64_t n = rt::numElements(out);
  if (s.inputType(0).shape == out && s.inputType(3).shape == out) {
    axisLoop(e, n, Axis{}, [&](Value* i, Value*) { element(i, i, i); });
  } else {
    const int64_t inner = out.empty() ? 1 : out.back();
    const int64_t rows = inner == 0 ? 0 : n / inner;
    const int64_t ia = out.empty() ? 0 : sta.back(), ib = out.empty() ? 0 : stb.back();
    e.parallelFor(
        rows,
        [&](Value* row) {
          Value* ao = e.c64(0);
          Value* bo = e.c64(0);
          Value* rest = row;
          for (size_t d = out.size() - 1; d-- > 0;) {
            Value* coord = b.CreateSRem(rest, e.c64(out[d]));
            rest = b.CreateSDiv(rest, e.c64(out[d]));
            ao = b.CreateAdd(ao, b.CreateMul(coord, e.c64(sta[d])));
            bo = b.CreateAdd(bo, b.CreateMul(coord, e.c64(stb[d])));
          }
          Value* yo = b.CreateMul(row, e.c64(inner));
          e.loop(0, inner, [&](Value* j) {
            element(b.CreateAdd(ao, b.CreateMul(j, e.c64(ia))), b.CreateAdd(bo, b.CreateMul(j, e.c64(ib))),
                    b.CreateAdd(yo, j));
          });
        },
        n >= 16384);
  }
  e.finish();
}

void emitQLinearGlobalAveragePool(StepBuilder& s) {
  const rt::TensorType& x = s.inputType(0);
  if (!isQuantType(x.dtype)) s.fail("input X must be u8 or i8");
  if (s.outputType().dtype != x.dtype) s.fail("output Y must have the input's type");
  if (s.node().attrs().getInt("channels_last", 0) != 0) s.fail("attribute 'channels_last' = 1 is not supported");
  if (x.shape.size() < 3) s.fail("input must have rank >= 3");
  const int64_t planes = x.shape[0] * x.shape[1], image = x.numElements() / std::max<int64_t>(planes, 1);
  if (image == 0) s.fail("empty pooling window");
  const float x_scale = constantScales(s, 1, "x_scale", 1)[0], y_scale = constantScales(s, 3, "y_scale", 1)[0];
  const int32_t x_zp = constantZeroPoints(s, 2, "x_zero_point", 1)[0],
                y_zp = constantZeroPoints(s, 4, "y_zero_point", 1)[0];
  const float scale = x_scale / (y_scale * static_cast<float>(image));  // as the reference
  const int x_slot = s.useInput(0);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  e.parallelFor(
      planes,
      [&](Value* plane) {
        Value* X = e.tensor(x_slot, e.i8());
        Value* base = b.CreateMul(plane, e.c64(image));
        const int32_t start = static_cast<int32_t>(static_cast<uint32_t>(-x_zp) * static_cast<uint32_t>(image));
        Value* sum = e.loopCarry(image, {e.c32(start)}, [&](Value* i, const std::vector<Value*>& acc) {
          return std::vector<Value*>{b.CreateAdd(acc[0], toI32(e, e.loadAt(e.i8(), X, b.CreateAdd(base, i)), x.dtype))};
        })[0];
        Value* v = b.CreateFMul(b.CreateSIToFP(sum, e.f32()), e.cf(scale));
        e.storeAt(quantizeValue(e, v, e.cf(static_cast<float>(y_zp)), x.dtype), e.tensor(y_slot, e.i8()), plane);
      },
      planes * image >= (1 << 15));
  e.finish();
}

}  // namespace vdla::cpu
