// fp32 Conv. Ordinary and grouped convolutions run as a matrix product per
// (image, group): the weights are re-laid out at compile time into blocks of
// MR output channels, [group][M/MR][K][MR] (K = channels x kernel taps), and
// at run time the input is unfolded (im2col) straight into panels of NR
// output positions, [image*group][P/NR][K][NR], so that the register-tiled
// micro-kernel streams both operands contiguously. Each tile keeps MR x NR
// sums in vector registers over the whole K loop and applies bias,
// activation and a fused residual Add in its epilogue. Tiles are spread over
// the threads with the MR blocks innermost, so consecutive tiles reuse one
// input panel from cache. Depthwise convolutions (one channel per group) run
// directly on a zero-padded copy of each plane instead.
#include <algorithm>
#include <cstring>

#include "step_builder.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

struct Epilogue {
  Activation act;       // the Conv's own
  int residual = -1;    // slot of the fused Add's other operand
  Activation post_act;  // the fused Add's
};

Value* finishValue(StepEmitter& e, Value* v, const Epilogue& ep, Value* residual_value) {
  v = applyActivation(e, v, ep.act);
  if (residual_value) v = e.b().CreateFAdd(v, residual_value);
  return applyActivation(e, v, ep.post_act);
}

rt::Tensor constantOf(const StepBuilder& s, size_t i, const char* what) {
  const ir::Value* v = s.node().input(i);
  if (!v->isConstant()) s.fail(std::string(what) + " '" + v->name() + "' must be a constant for this target");
  return v->constant();
}

void emitDepthwise(StepBuilder& s, const Window2& w, int64_t batch, int64_t channels, const Epilogue& ep_in) {
  Epilogue ep = ep_in;
  const int x_slot = s.useInput(0), w_slot = s.useInput(1), b_slot = s.useInput(2);
  if (s.residual) ep.residual = s.use(s.residual);
  const int64_t taps = w.k_h * w.k_w;
  const int64_t hp = (w.out_h - 1) * w.stride_h + (w.k_h - 1) * w.dil_h + 1;
  const int64_t wp = (w.out_w - 1) * w.stride_w + (w.k_w - 1) * w.dil_w + 1;
  s.setWorkspace(0, hp * wp * 4);
  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  e.parallelFor(batch * channels, [&](Value* plane) {
    Value* x = e.tensor(x_slot, e.f32());
    Value* y = e.tensor(y_slot, e.f32());
    Value* wt = e.tensor(w_slot, e.f32());
    Value* pad = e.threadWorkspace(0, hp * wp * 4, e.f32());
    Value* c = b.CreateSRem(plane, e.c64(channels));
    Value* x_plane = b.CreateMul(plane, e.c64(w.in_h * w.in_w));
    // Zero-padded copy: every tap below reads inside it without a bounds check.
    e.loop(0, hp, [&](Value* r) {
      Value* ih = b.CreateSub(r, e.c64(w.pad_top));
      Value* row_ok = b.CreateAnd(b.CreateICmpSGE(ih, e.c64(0)), b.CreateICmpSLT(ih, e.c64(w.in_h)));
      Value* ihc = b.CreateSelect(row_ok, ih, e.c64(0));
      e.loop(0, wp, [&](Value* col) {
        Value* iw = b.CreateSub(col, e.c64(w.pad_left));
        Value* ok = b.CreateAnd(row_ok, b.CreateAnd(b.CreateICmpSGE(iw, e.c64(0)), b.CreateICmpSLT(iw, e.c64(w.in_w))));
        Value* iwc = b.CreateSelect(ok, iw, e.c64(0));
        Value* v = e.loadAt(e.f32(), x, b.CreateAdd(x_plane, b.CreateAdd(b.CreateMul(ihc, e.c64(w.in_w)), iwc)));
        e.storeAt(b.CreateSelect(ok, v, e.cf(0)), pad, b.CreateAdd(b.CreateMul(r, e.c64(wp)), col));
      });
    });
    std::vector<Value*> weights;
    for (int64_t t = 0; t < taps; ++t)
      weights.push_back(e.loadAt(e.f32(), wt, b.CreateAdd(b.CreateMul(c, e.c64(taps)), e.c64(t))));
    Value* bias = b_slot >= 0 ? e.loadAt(e.f32(), e.tensor(b_slot, e.f32()), c) : e.cf(0);
    Value* y_plane = b.CreateMul(plane, e.c64(w.out_h * w.out_w));
    e.loop(0, w.out_h, [&](Value* oh) {
      Value* row0 = b.CreateMul(oh, e.c64(w.stride_h));
      e.loop(0, w.out_w, [&](Value* ow) {
        Value* col0 = b.CreateMul(ow, e.c64(w.stride_w));
        Value* acc = bias;
        for (int64_t kh = 0; kh < w.k_h; ++kh)
          for (int64_t kw = 0; kw < w.k_w; ++kw) {
            Value* row = b.CreateAdd(row0, e.c64(kh * w.dil_h));
            Value* idx = b.CreateAdd(b.CreateMul(row, e.c64(wp)), b.CreateAdd(col0, e.c64(kw * w.dil_w)));
            acc = e.intrinsic(Intrinsic::fmuladd, {e.loadAt(e.f32(), pad, idx), weights[kh * w.k_w + kw], acc});
          }
        Value* at = b.CreateAdd(y_plane, b.CreateAdd(b.CreateMul(oh, e.c64(w.out_w)), ow));
        Value* res = ep.residual >= 0 ? e.loadAt(e.f32(), e.tensor(ep.residual, e.f32()), at) : nullptr;
        e.storeAt(finishValue(e, acc, ep, res), y, at);
      });
    });
  });
  e.finish();
}

}  // namespace

void emitConv(StepBuilder& s) {
  s.requireF32();
  const rt::Shape& x = s.inputType(0).shape;
  const rt::Shape& wshape = s.inputType(1).shape;
  const rt::Shape& y = s.outputType().shape;
  if (wshape.size() != x.size()) s.fail("weights " + rt::shapeToString(wshape) + " must have the input's rank");
  const int64_t group = s.node().attrs().getInt("group", 1);
  const int64_t batch = x[0], channels = x[1], out_channels = wshape[0];
  if (group < 1 || channels != wshape[1] * group || out_channels % group != 0)
    s.fail("channels of input " + rt::shapeToString(x) + " and weights " + rt::shapeToString(wshape) +
           " do not fit group " + std::to_string(group));
  const int64_t k_h = wshape.size() == 4 ? wshape[2] : 1, k_w = wshape.back();
  const Window2 w = resolveWindow2(s, x, y, k_h, k_w);
  Epilogue ep;
  ep.act = readActivation(s.node());
  if (s.fused_add) ep.post_act = readActivation(*s.fused_add);
  if (s.node().input(2) && !s.node().input(2)->isConstant()) s.fail("bias must be a constant for this target");

  if (group == channels && out_channels == channels) {
    emitDepthwise(s, w, batch, channels, ep);
    return;
  }

  // ---- packed-GEMM convolution
  const int64_t cg = channels / group, mg = out_channels / group;
  const int64_t kdim = cg * w.k_h * w.k_w, positions = w.out_h * w.out_w;
  const TargetTuning& tune = s.tuning();
  const int64_t mr = tune.gemm_rows, vl = tune.vector_width, nv = tune.gemm_vectors, nr = vl * nv;
  const int64_t mblocks = (mg + mr - 1) / mr, pblocks = (positions + nr - 1) / nr;

  // Weights [M][cg*kh*kw] -> [g][mb][k][mr], zero rows past M; bias padded alike.
  const rt::Tensor wt = constantOf(s, 1, "weights");
  const float* wsrc = wt.data<float>();
  rt::Tensor packed(rt::DType::F32, {group * mblocks * kdim * mr});
  float* pw = packed.data<float>();
  for (int64_t g = 0; g < group; ++g)
    for (int64_t m = 0; m < mg; ++m)
      for (int64_t k = 0; k < kdim; ++k)
        pw[((g * mblocks + m / mr) * kdim + k) * mr + m % mr] = wsrc[(g * mg + m) * kdim + k];
  rt::Tensor bias(rt::DType::F32, {group * mblocks * mr});
  if (s.node().input(2)) {
    const float* bsrc = s.node().input(2)->constant().data<float>();
    for (int64_t g = 0; g < group; ++g)
      for (int64_t m = 0; m < mg; ++m) bias.data<float>()[(g * mblocks + m / mr) * mr + m % mr] = bsrc[g * mg + m];
  }
  const int x_slot = s.useInput(0);
  const int w_slot = s.addConstant("packed_weights", packed);
  const int b_slot = s.addConstant("packed_bias", bias);
  if (s.residual) ep.residual = s.use(s.residual);
  const int64_t panel_floats = pblocks * kdim * nr;
  s.setWorkspace(batch * group * panel_floats * 4, 0);

  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);

  // Phase 1: im2col into panels, one (image, group, k) row per index.
  e.parallelFor(batch * group * kdim, [&](Value* row) {
    Value* x = e.tensor(x_slot, e.f32());
    Value* panels = e.sharedWorkspace(e.f32());
    Value* ng = b.CreateSDiv(row, e.c64(kdim));
    Value* k = b.CreateSRem(row, e.c64(kdim));
    Value* n = b.CreateSDiv(ng, e.c64(group));
    Value* g = b.CreateSRem(ng, e.c64(group));
    Value* c = b.CreateAdd(b.CreateMul(g, e.c64(cg)), b.CreateSDiv(k, e.c64(w.k_h * w.k_w)));
    Value* kh = b.CreateSRem(b.CreateSDiv(k, e.c64(w.k_w)), e.c64(w.k_h));
    Value* kw = b.CreateSRem(k, e.c64(w.k_w));
    Value* x_plane = b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(channels)), c), e.c64(w.in_h * w.in_w));
    Value* panel_base = b.CreateMul(ng, e.c64(panel_floats));
    auto dest = [&](Value* p) {  // panel index of position p in row k
      Value* pb = b.CreateSDiv(p, e.c64(nr));
      Value* lane = b.CreateSRem(p, e.c64(nr));
      return b.CreateAdd(panel_base, b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(pb, e.c64(kdim)), k), e.c64(nr)), lane));
    };
    e.loop(0, w.out_h, [&](Value* oh) {
      Value* ih = b.CreateAdd(b.CreateSub(b.CreateMul(oh, e.c64(w.stride_h)), e.c64(w.pad_top)), b.CreateMul(kh, e.c64(w.dil_h)));
      Value* row_ok = b.CreateAnd(b.CreateICmpSGE(ih, e.c64(0)), b.CreateICmpSLT(ih, e.c64(w.in_h)));
      Value* ihc = b.CreateSelect(row_ok, ih, e.c64(0));
      Value* src_row = b.CreateAdd(x_plane, b.CreateMul(ihc, e.c64(w.in_w)));
      Value* iw0 = b.CreateSub(b.CreateMul(kw, e.c64(w.dil_w)), e.c64(w.pad_left));
      e.loop(0, w.out_w, [&](Value* ow) {
        Value* iw = b.CreateAdd(b.CreateMul(ow, e.c64(w.stride_w)), iw0);
        Value* ok = b.CreateAnd(row_ok, b.CreateAnd(b.CreateICmpSGE(iw, e.c64(0)), b.CreateICmpSLT(iw, e.c64(w.in_w))));
        Value* v = e.loadAt(e.f32(), x, b.CreateAdd(src_row, b.CreateSelect(ok, iw, e.c64(0))));
        e.storeAt(b.CreateSelect(ok, v, e.cf(0)), panels, dest(b.CreateAdd(b.CreateMul(oh, e.c64(w.out_w)), ow)));
      });
    });
    if (pblocks * nr > positions)  // the last panel's missing positions read as zero
      e.loop(positions, pblocks * nr, [&](Value* p) { e.storeAt(e.cf(0), panels, dest(p)); });
  });

  // Phase 2: one MR x NR tile per index, MR blocks innermost.
  e.parallelFor(batch * group * pblocks * mblocks, [&](Value* t) {
    Value* panels = e.sharedWorkspace(e.f32());
    Value* wp = e.tensor(w_slot, e.f32());
    Value* bp = e.tensor(b_slot, e.f32());
    Value* y = e.tensor(y_slot, e.f32());
    Value* mb = b.CreateSRem(t, e.c64(mblocks));
    Value* pall = b.CreateSDiv(t, e.c64(mblocks));
    Value* pb = b.CreateSRem(pall, e.c64(pblocks));
    Value* ng = b.CreateSDiv(pall, e.c64(pblocks));
    Value* n = b.CreateSDiv(ng, e.c64(group));
    Value* g = b.CreateSRem(ng, e.c64(group));
    Value* gm = b.CreateAdd(b.CreateMul(g, e.c64(mblocks)), mb);  // block index in the packed weights
    Value* w_base = b.CreateMul(gm, e.c64(kdim * mr));
    Value* b_base = b.CreateAdd(b.CreateMul(ng, e.c64(panel_floats)), b.CreateMul(pb, e.c64(kdim * nr)));
    Value* zero = b.CreateVectorSplat(vl, e.cf(0));
    std::vector<Value*> init(mr * nv, zero);
    std::vector<Value*> acc = e.loopCarry(kdim, init, [&](Value* k, const std::vector<Value*>& sums) {
      std::vector<Value*> next(sums.size());
      Value* bk = b.CreateAdd(b_base, b.CreateMul(k, e.c64(nr)));
      std::vector<Value*> cols;
      for (int64_t v = 0; v < nv; ++v) cols.push_back(e.loadVec(panels, b.CreateAdd(bk, e.c64(v * vl)), vl));
      Value* wk = b.CreateAdd(w_base, b.CreateMul(k, e.c64(mr)));
      for (int64_t r = 0; r < mr; ++r) {
        Value* wv = b.CreateVectorSplat(vl, e.loadAt(e.f32(), wp, b.CreateAdd(wk, e.c64(r))));
        for (int64_t v = 0; v < nv; ++v)
          next[r * nv + v] = e.intrinsic(Intrinsic::fmuladd, {wv, cols[v], sums[r * nv + v]});
      }
      return next;
    });
    // Epilogue: row r is output channel g*mg + mb*mr + r, columns pb*NR + j.
    const int64_t last_cols = positions - (pblocks - 1) * nr;
    for (int64_t r = 0; r < mr; ++r) {
      Value* m = b.CreateAdd(b.CreateMul(mb, e.c64(mr)), e.c64(r));
      auto store_row = [&] {
        Value* bias_v = b.CreateVectorSplat(vl, e.loadAt(e.f32(), bp, b.CreateAdd(b.CreateMul(gm, e.c64(mr)), e.c64(r))));
        Value* oc = b.CreateAdd(b.CreateMul(g, e.c64(mg)), m);
        Value* row_base = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(out_channels)), oc), e.c64(positions)),
                                      b.CreateMul(pb, e.c64(nr)));
        Value* res = ep.residual >= 0 ? e.tensor(ep.residual, e.f32()) : nullptr;
        auto full = [&] {
          for (int64_t v = 0; v < nv; ++v) {
            Value* at = b.CreateAdd(row_base, e.c64(v * vl));
            Value* sum = b.CreateFAdd(acc[r * nv + v], bias_v);
            e.storeVec(finishValue(e, sum, ep, res ? e.loadVec(res, at, vl) : nullptr), y, at);
          }
        };
        auto partial = [&] {
          for (int64_t j = 0; j < last_cols; ++j) {
            Value* at = b.CreateAdd(row_base, e.c64(j));
            Value* sum = b.CreateFAdd(b.CreateExtractElement(acc[r * nv + j / vl], j % vl),
                                      b.CreateExtractElement(bias_v, uint64_t(0)));
            e.storeAt(finishValue(e, sum, ep, res ? e.loadAt(e.f32(), res, at) : nullptr), y, at);
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
      if (mg % mr == 0) store_row();
      else e.when(b.CreateICmpSLT(m, e.c64(mg)), store_row);
    }
  });
  e.finish();
}

}  // namespace vdla::cpu
