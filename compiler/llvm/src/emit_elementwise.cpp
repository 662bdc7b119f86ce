// Element-wise operators (fp32): unary activations and math, binary
// arithmetic with numpy broadcasting and a fused activation, Clip and
// inference BatchNormalization. Work is split into rows of the output's last
// dimension (or fixed chunks when no operand broadcasts); the inner loops are
// plain scalar loops that LLVM vectorises for the target.
#include <cmath>

#include "step_builder.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

constexpr int64_t kChunk = 16384;  // elements per parallel index of flat loops

// Runs body(i) for every i in [0, n), in parallel chunks when n is large.
void flatLoop(StepEmitter& e, int64_t n, const StepEmitter::Body& body) {
  IRBuilder<>& b = e.b();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  e.parallelFor(
      chunks,
      [&](Value* c) {
        Value* begin = b.CreateMul(c, e.c64(kChunk));
        Value* end = b.CreateAdd(begin, e.c64(kChunk));
        end = b.CreateSelect(b.CreateICmpSLT(end, e.c64(n)), end, e.c64(n));
        e.loop(begin, end, body);
      },
      chunks > 1);
}

Value* callLibm(StepEmitter& e, const char* name, Value* v) {
  Module* m = e.b().GetInsertBlock()->getModule();
  FunctionCallee f = m->getOrInsertFunction(name, FunctionType::get(e.f32(), {e.f32()}, false));
  return e.b().CreateCall(f, {v});
}

}  // namespace

void emitUnary(StepBuilder& s) {
  const std::string op = s.node().op();
  if (op == "Relu" && s.inputType(0).dtype == rt::DType::I8 && s.outputType().dtype == rt::DType::I8) {
    // Relu commutes with a symmetric int8 quantisation: max(q, 0).
    const int x_slot = s.useInput(0);
    StepEmitter& e = s.code();
    IRBuilder<>& b = e.b();
    const int y_slot = s.output(0);
    flatLoop(e, s.outputType().numElements(), [&](Value* i) {
      Value* v = e.loadAt(e.i8(), e.tensor(x_slot, e.i8()), i);
      e.storeAt(b.CreateSelect(b.CreateICmpSGT(v, b.getInt8(0)), v, b.getInt8(0)), e.tensor(y_slot, e.i8()), i);
    });
    e.finish();
    return;
  }
  s.requireF32();
  const rt::AttributeMap& attrs = s.node().attrs();
  const int64_t n = s.outputType().numElements();
  const int x_slot = s.useInput(0);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  const float alpha = static_cast<float>(attrs.getFloat("alpha", op == "LeakyRelu" ? 0.01 : 0.2));
  const float beta = static_cast<float>(attrs.getFloat("beta", 0.5));
  auto hardSigmoid = [&](Value* v, float a, float c) {
    Value* t = b.CreateFAdd(b.CreateFMul(v, e.cf(a)), e.cf(c));
    // std::max(0, std::min(1, t))
    t = b.CreateSelect(b.CreateFCmpOLT(e.cf(1), t), e.cf(1), t);
    return b.CreateSelect(b.CreateFCmpOLT(t, e.cf(0)), e.cf(0), t);
  };
  auto f = [&](Value* v) -> Value* {
    if (op == "Relu") return b.CreateSelect(b.CreateFCmpOGT(v, e.cf(0)), v, e.cf(0));
    if (op == "Neg") return b.CreateFNeg(v);
    if (op == "Abs") return b.CreateSelect(b.CreateFCmpOLT(v, e.cf(0)), b.CreateFNeg(v), v);
    if (op == "Sigmoid")
      return b.CreateFDiv(e.cf(1), b.CreateFAdd(e.cf(1), e.intrinsic(Intrinsic::exp, {b.CreateFNeg(v)})));
    if (op == "Tanh") return callLibm(e, "tanhf", v);
    if (op == "Exp") return e.intrinsic(Intrinsic::exp, {v});
    if (op == "Sqrt") return e.intrinsic(Intrinsic::sqrt, {v});
    if (op == "Reciprocal") return b.CreateFDiv(e.cf(1), v);
    if (op == "LeakyRelu") return b.CreateSelect(b.CreateFCmpOGE(v, e.cf(0)), v, b.CreateFMul(v, e.cf(alpha)));
    if (op == "HardSigmoid") return hardSigmoid(v, alpha, beta);
    if (op == "HardSwish") return b.CreateFMul(v, hardSigmoid(b.CreateFDiv(v, e.cf(6)), 1.0f, 0.5f));
    s.fail("operator '" + op + "' is not supported");
  };
  flatLoop(e, n, [&](Value* i) {
    e.storeAt(f(e.loadAt(e.f32(), e.tensor(x_slot, e.f32()), i)), e.tensor(y_slot, e.f32()), i);
  });
  e.finish();
}

void emitBinary(StepBuilder& s) {
  s.requireF32();
  const std::string op = s.node().op();
  const rt::Shape& out = s.outputType().shape;
  const rt::Shape& as = s.inputType(0).shape;
  const rt::Shape& bs = s.inputType(1).shape;
  const Activation act = readActivation(s.node());
  auto strides = [&](const rt::Shape& in) {
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
  const std::vector<int64_t> sa = strides(as), sb = strides(bs);
  const int a_slot = s.useInput(0), b_slot = s.useInput(1);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  auto combine = [&](Value* x, Value* z) -> Value* {
    Value* r = op == "Add"   ? b.CreateFAdd(x, z)
               : op == "Sub" ? b.CreateFSub(x, z)
               : op == "Mul" ? b.CreateFMul(x, z)
                             : b.CreateFDiv(x, z);
    return applyActivation(e, r, act);
  };
  const int64_t n = rt::numElements(out);
  if (as == out && bs == out) {
    flatLoop(e, n, [&](Value* i) {
      e.storeAt(
          combine(e.loadAt(e.f32(), e.tensor(a_slot, e.f32()), i), e.loadAt(e.f32(), e.tensor(b_slot, e.f32()), i)),
          e.tensor(y_slot, e.f32()), i);
    });
  } else {
    const int64_t inner = out.empty() ? 1 : out.back();
    const int64_t rows = inner == 0 ? 0 : n / inner;
    const int64_t ia = out.empty() ? 0 : sa.back(), ib = out.empty() ? 0 : sb.back();
    e.parallelFor(
        rows,
        [&](Value* row) {
          Value* ao = e.c64(0);
          Value* bo = e.c64(0);
          Value* rest = row;
          for (size_t d = out.size() - 1; d-- > 0;) {
            Value* coord = b.CreateSRem(rest, e.c64(out[d]));
            rest = b.CreateSDiv(rest, e.c64(out[d]));
            ao = b.CreateAdd(ao, b.CreateMul(coord, e.c64(sa[d])));
            bo = b.CreateAdd(bo, b.CreateMul(coord, e.c64(sb[d])));
          }
          Value* yo = b.CreateMul(row, e.c64(inner));
          e.loop(0, inner, [&](Value* j) {
            Value* x = e.loadAt(e.f32(), e.tensor(a_slot, e.f32()), b.CreateAdd(ao, b.CreateMul(j, e.c64(ia))));
            Value* z = e.loadAt(e.f32(), e.tensor(b_slot, e.f32()), b.CreateAdd(bo, b.CreateMul(j, e.c64(ib))));
            e.storeAt(combine(x, z), e.tensor(y_slot, e.f32()), b.CreateAdd(yo, j));
          });
        },
        n >= kChunk);
  }
  e.finish();
}

void emitClip(StepBuilder& s) {
  s.requireF32();
  float lo = static_cast<float>(s.node().attrs().getFloat("min", -INFINITY));
  float hi = static_cast<float>(s.node().attrs().getFloat("max", INFINITY));
  for (size_t i = 1; i <= 2; ++i) {
    const ir::Value* v = s.node().input(i);
    if (!v) continue;
    if (!v->isConstant()) s.fail("Clip bounds must be constants for this target");
    (i == 1 ? lo : hi) = v->constant().data<float>()[0];
  }
  const int x_slot = s.useInput(0);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  flatLoop(e, s.outputType().numElements(), [&](Value* i) {
    Value* v = e.loadAt(e.f32(), e.tensor(x_slot, e.f32()), i);
    v = b.CreateSelect(b.CreateFCmpOLT(v, e.cf(lo)), e.cf(lo), v);  // std::min(std::max(v, lo), hi)
    v = b.CreateSelect(b.CreateFCmpOLT(e.cf(hi), v), e.cf(hi), v);
    e.storeAt(v, e.tensor(y_slot, e.f32()), i);
  });
  e.finish();
}

void emitBatchNorm(StepBuilder& s) {
  s.requireF32();
  const rt::Shape& x = s.inputType(0).shape;
  if (x.size() < 2) s.fail("input must have rank >= 2");
  const int64_t c = x[1], size = rt::numElements(x) / std::max<int64_t>(x[0] * c, 1);
  const float eps = static_cast<float>(s.node().attrs().getFloat("epsilon", 1e-5));
  int slots[5];
  for (size_t i = 0; i < 5; ++i) slots[i] = s.useInput(i);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  e.parallelFor(
      x[0] * c,
      [&](Value* plane) {
        Value* ch = b.CreateSRem(plane, e.c64(c));
        auto param = [&](int i) { return e.loadAt(e.f32(), e.tensor(slots[i], e.f32()), ch); };
        Value* inv_std = b.CreateFDiv(e.cf(1), e.intrinsic(Intrinsic::sqrt, {b.CreateFAdd(param(4), e.cf(eps))}));
        Value* scale = param(1);
        Value* shift = param(2);
        Value* mean = param(3);
        Value* base = b.CreateMul(plane, e.c64(size));
        e.loop(0, size, [&](Value* i) {
          Value* at = b.CreateAdd(base, i);
          Value* v = b.CreateFSub(e.loadAt(e.f32(), e.tensor(slots[0], e.f32()), at), mean);
          v = b.CreateFAdd(b.CreateFMul(b.CreateFMul(v, inv_std), scale), shift);
          e.storeAt(v, e.tensor(y_slot, e.f32()), at);
        });
      },
      x[0] * c * size >= kChunk);
  e.finish();
}

}  // namespace vdla::cpu
