// Gemm and MatMul (fp32). Each task computes a block of one output row: the
// row is accumulated in place over K (the inner loop runs along the row, so
// LLVM vectorises it), then scaled, biased and activated; batched MatMul
// broadcasts its batch dimensions through strides computed here. A Gemm with
// constant weights (the classifier of a CNN) instead packs them at compile
// time into column panels [N/NB][K][NB] read front to back, and keeps the NB
// sums of a task in vector registers over the whole K loop: at batch 1 the
// layer is a stream over its weights, which this reads once, contiguously.
#include <algorithm>

#include "step_builder.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

// Element (i, j) of a matrix operand lives at base + i*row + j*col.
struct MatrixAccess {
  int slot = -1;
  int64_t row = 0, col = 0;
  std::vector<int64_t> batch;  // stride per output batch dimension (0: broadcast)
};

struct Product {
  int64_t m = 0, k = 0, n = 0;
  rt::Shape batch;       // output batch dimensions
  MatrixAccess a, b, c;  // c.slot < 0: no C
  float alpha = 1, beta = 1;
  Activation act;
};

// Per-dimension strides of `shape`'s leading (batch) part broadcast to `out`.
std::vector<int64_t> batchStrides(const rt::Shape& out_batch, const rt::Shape& shape, int64_t matrix_size) {
  std::vector<int64_t> strides(out_batch.size(), 0);
  const size_t nb = shape.size() - 2, offset = out_batch.size() - nb;
  int64_t stride = matrix_size;
  for (size_t d = nb; d-- > 0;) {
    strides[d + offset] = shape[d] == 1 ? 0 : stride;
    stride *= shape[d];
  }
  return strides;
}

void emitProduct(StepBuilder& s, const Product& p) {
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  const int64_t block = std::max<int64_t>(64, e.tuning().vector_width * 8);
  const int64_t nblocks = (p.n + block - 1) / block;
  int64_t batches = 1;
  for (int64_t d : p.batch) batches *= d;
  const bool parallel = batches * p.m * p.n * p.k >= (1 << 16);
  e.parallelFor(
      batches * p.m * nblocks,
      [&](Value* idx) {
        Value* nb = b.CreateSRem(idx, e.c64(nblocks));
        Value* bm = b.CreateSDiv(idx, e.c64(nblocks));
        Value* m = b.CreateSRem(bm, e.c64(p.m));
        Value* bi = b.CreateSDiv(bm, e.c64(p.m));
        // Batch offsets of each operand from the batch index's coordinates.
        Value* a_off = e.c64(0);
        Value* b_off = e.c64(0);
        Value* c_off = e.c64(0);
        Value* rest = bi;
        for (size_t d = p.batch.size(); d-- > 0;) {
          Value* coord = b.CreateSRem(rest, e.c64(p.batch[d]));
          rest = b.CreateSDiv(rest, e.c64(p.batch[d]));
          a_off = b.CreateAdd(a_off, b.CreateMul(coord, e.c64(p.a.batch[d])));
          b_off = b.CreateAdd(b_off, b.CreateMul(coord, e.c64(p.b.batch[d])));
          if (p.c.slot >= 0) c_off = b.CreateAdd(c_off, b.CreateMul(coord, e.c64(p.c.batch[d])));
        }
        Value* n0 = b.CreateMul(nb, e.c64(block));
        Value* n1 = b.CreateSelect(b.CreateICmpSLT(b.CreateAdd(n0, e.c64(block)), e.c64(p.n)),
                                   b.CreateAdd(n0, e.c64(block)), e.c64(p.n));
        Value* A = e.tensor(p.a.slot, e.f32());
        Value* B = e.tensor(p.b.slot, e.f32());
        Value* Y = e.tensor(y_slot, e.f32());
        Value* y_row = b.CreateMul(b.CreateAdd(b.CreateMul(bi, e.c64(p.m)), m), e.c64(p.n));
        e.loop(n0, n1, [&](Value* j) { e.storeAt(e.cf(0), Y, b.CreateAdd(y_row, j)); });
        Value* a_row = b.CreateAdd(a_off, b.CreateMul(m, e.c64(p.a.row)));
        e.loop(0, p.k, [&](Value* k) {
          Value* av = e.loadAt(e.f32(), A, b.CreateAdd(a_row, b.CreateMul(k, e.c64(p.a.col))));
          Value* b_row = b.CreateAdd(b_off, b.CreateMul(k, e.c64(p.b.row)));
          e.loop(n0, n1, [&](Value* j) {
            Value* yi = b.CreateAdd(y_row, j);
            Value* bv = e.loadAt(e.f32(), B, b.CreateAdd(b_row, b.CreateMul(j, e.c64(p.b.col))));
            e.storeAt(e.intrinsic(Intrinsic::fmuladd, {av, bv, e.loadAt(e.f32(), Y, yi)}), Y, yi);
          });
        });
        Value* C = p.c.slot >= 0 ? e.tensor(p.c.slot, e.f32()) : nullptr;
        e.loop(n0, n1, [&](Value* j) {
          Value* yi = b.CreateAdd(y_row, j);
          Value* v = e.loadAt(e.f32(), Y, yi);
          if (p.alpha != 1) v = b.CreateFMul(v, e.cf(p.alpha));
          if (C) {
            Value* ci = b.CreateAdd(c_off, b.CreateAdd(b.CreateMul(m, e.c64(p.c.row)), b.CreateMul(j, e.c64(p.c.col))));
            Value* cv = e.loadAt(e.f32(), C, ci);
            if (p.beta != 1) cv = b.CreateFMul(cv, e.cf(p.beta));
            v = b.CreateFAdd(v, cv);
          }
          e.storeAt(applyActivation(e, v, p.act), Y, yi);
        });
      },
      parallel);
  e.finish();
}

// Gemm against constant weights packed as [N/NB][K][NB] (zero columns past
// N): one task per (row, panel), NB/VL vector accumulators.
void emitPackedProduct(StepBuilder& s, const Product& p, const float* weights, bool weights_nk) {
  const int64_t vl = s.tuning().vector_width, nvec = 8, nb = vl * nvec;
  const int64_t panels = (p.n + nb - 1) / nb;
  rt::Tensor packed(rt::DType::F32, {panels * p.k * nb});
  float* dst = packed.data<float>();
  for (int64_t j = 0; j < p.n; ++j)
    for (int64_t k = 0; k < p.k; ++k)
      dst[((j / nb) * p.k + k) * nb + j % nb] = weights_nk ? weights[j * p.k + k] : weights[k * p.n + j];
  const int w_slot = s.addConstant("weights_panels", packed);
  const int a_slot = p.a.slot, c_slot = p.c.slot;
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  const int64_t last_cols = p.n - (panels - 1) * nb;
  Type* vt = e.vecF32(static_cast<int>(vl));
  e.parallelFor(
      p.m * panels,
      [&](Value* idx) {
        Value* panel = b.CreateSRem(idx, e.c64(panels));
        Value* m = b.CreateSDiv(idx, e.c64(panels));
        Value* A = e.tensor(a_slot, e.f32());
        Value* W = e.tensor(w_slot, e.f32());
        Value* Y = e.tensor(y_slot, e.f32());
        Value* a_row = b.CreateMul(m, e.c64(p.a.row));
        Value* w_base = b.CreateMul(panel, e.c64(p.k * nb));
        std::vector<Value*> init(nvec, b.CreateVectorSplat(vl, e.cf(0)));
        std::vector<Value*> acc = e.loopCarry(p.k, init, [&](Value* k, const std::vector<Value*>& sums) {
          Value* av = b.CreateVectorSplat(vl, e.loadAt(e.f32(), A, b.CreateAdd(a_row, b.CreateMul(k, e.c64(p.a.col)))));
          Value* wk = b.CreateAdd(w_base, b.CreateMul(k, e.c64(nb)));
          std::vector<Value*> next(nvec);
          for (int64_t v = 0; v < nvec; ++v)
            next[v] = e.intrinsic(Intrinsic::fmuladd, {av, e.loadVec(W, b.CreateAdd(wk, e.c64(v * vl)), vl), sums[v]});
          return next;
        });
        Value* C = c_slot >= 0 ? e.tensor(c_slot, e.f32()) : nullptr;
        // Vector v of the panel holds columns j0 + v*VL ...; `lanes` of them are
        // inside N (all of them except in the last panel).
        auto store = [&](int64_t lanes_limit) {
          for (int64_t v = 0; v < nvec; ++v) {
            const int64_t lanes = std::min<int64_t>(vl, lanes_limit - v * vl);
            if (lanes <= 0) break;
            std::vector<Constant*> bits;
            for (int64_t j = 0; j < vl; ++j) bits.push_back(b.getInt1(j < lanes));
            Value* mask = ConstantVector::get(bits);
            Value* j0 = b.CreateAdd(b.CreateMul(panel, e.c64(nb)), e.c64(v * vl));
            Value* val = acc[v];
            if (p.alpha != 1) val = b.CreateFMul(val, b.CreateVectorSplat(vl, e.cf(p.alpha)));
            if (C) {
              Value* ci = b.CreateAdd(b.CreateMul(m, e.c64(p.c.row)), b.CreateMul(j0, e.c64(p.c.col)));
              Value* cv;
              if (p.c.col == 0)
                cv = b.CreateVectorSplat(vl, e.loadAt(e.f32(), C, ci));
              else if (lanes == vl)
                cv = e.loadVec(C, ci, vl);
              else
                cv = b.CreateMaskedLoad(vt, b.CreateBitCast(e.at(C, ci), vt->getPointerTo()), Align(4), mask,
                                        ConstantAggregateZero::get(vt));
              if (p.beta != 1) cv = b.CreateFMul(cv, b.CreateVectorSplat(vl, e.cf(p.beta)));
              val = b.CreateFAdd(val, cv);
            }
            val = applyActivation(e, val, p.act);
            Value* yi = b.CreateAdd(b.CreateMul(m, e.c64(p.n)), j0);
            if (lanes == vl)
              e.storeVec(val, Y, yi);
            else
              b.CreateMaskedStore(val, b.CreateBitCast(e.at(Y, yi), vt->getPointerTo()), Align(4), mask);
          }
        };
        if (last_cols == nb) {
          store(nb);
        } else {
          Value* is_last = b.CreateICmpEQ(panel, e.c64(panels - 1));
          e.when(b.CreateNot(is_last), [&] { store(nb); });
          e.when(is_last, [&] { store(last_cols); });
        }
      },
      p.m * p.n * p.k >= (1 << 16));
  e.finish();
}

// Strides of a bias C of rank <= 2 broadcast to [M, N].
MatrixAccess biasAccess(const StepBuilder& s, const rt::Shape& c, int64_t m, int64_t n) {
  MatrixAccess acc;
  if (c.size() > 2) s.fail("bias C must have rank <= 2, got " + rt::shapeToString(c));
  const int64_t cm = c.size() == 2 ? c[0] : 1, cn = c.empty() ? 1 : c.back();
  if ((cm != 1 && cm != m) || (cn != 1 && cn != n))
    s.fail("bias C " + rt::shapeToString(c) + " does not broadcast to [" + std::to_string(m) + "," + std::to_string(n) +
           "]");
  acc.row = cm == 1 ? 0 : cn;
  acc.col = cn == 1 ? 0 : 1;
  return acc;
}

}  // namespace

void emitGemm(StepBuilder& s) {
  s.requireF32();
  const rt::Shape& a = s.inputType(0).shape;
  const rt::Shape& bs = s.inputType(1).shape;
  if (a.size() != 2 || bs.size() != 2) s.fail("A and B must be matrices");
  const rt::AttributeMap& attrs = s.node().attrs();
  const bool ta = attrs.getInt("transA", 0) != 0, tb = attrs.getInt("transB", 0) != 0;
  Product p;
  p.m = ta ? a[1] : a[0];
  p.k = ta ? a[0] : a[1];
  p.n = tb ? bs[0] : bs[1];
  if ((tb ? bs[1] : bs[0]) != p.k) s.fail("inner dimensions of A and B differ");
  p.alpha = static_cast<float>(attrs.getFloat("alpha", 1.0));
  p.beta = static_cast<float>(attrs.getFloat("beta", 1.0));
  p.act = readActivation(s.node());
  p.a.slot = s.useInput(0);
  p.a.row = ta ? 1 : p.k;
  p.a.col = ta ? p.m : 1;
  const ir::Value* bv = s.node().input(1);
  if (s.node().input(2)) {
    p.c = biasAccess(s, s.inputType(2).shape, p.m, p.n);
    p.c.slot = s.useInput(2);
  }
  if (bv->isConstant()) {
    emitPackedProduct(s, p, bv->constant().data<float>(), tb);
    return;
  }
  p.b.slot = s.useInput(1);
  p.b.row = tb ? 1 : p.n;
  p.b.col = tb ? p.k : 1;
  emitProduct(s, p);
}

void emitMatMul(StepBuilder& s) {
  s.requireF32();
  const rt::Shape& a = s.inputType(0).shape;
  const rt::Shape& bs = s.inputType(1).shape;
  const rt::Shape& y = s.outputType().shape;
  if (a.size() < 2 || bs.size() < 2) s.fail("operands of rank 1 are not supported");
  Product p;
  p.m = a[a.size() - 2];
  p.k = a.back();
  p.n = bs.back();
  if (bs[bs.size() - 2] != p.k) s.fail("inner dimensions of A and B differ");
  p.batch.assign(y.begin(), y.end() - 2);
  p.act = readActivation(s.node());
  p.a.slot = s.useInput(0);
  p.a.row = p.k;
  p.a.col = 1;
  p.a.batch = batchStrides(p.batch, a, p.m * p.k);
  p.b.slot = s.useInput(1);
  p.b.row = p.n;
  p.b.col = 1;
  p.b.batch = batchStrides(p.batch, bs, p.k * p.n);
  emitProduct(s, p);
}

}  // namespace vdla::cpu
