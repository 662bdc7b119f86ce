// fp32 Conv. Ordinary and grouped convolutions run as a matrix product per
// (image, group) whose second operand is read straight from the input in the
// phase-plane layout of emit_conv_layout.h: a first parallel pass copies the
// input once into zero-padded phase planes (about the input's size, where an
// im2col copy of a 3x3 layer is 9x that), then each MR x NR tile of (output
// channels) x (phase-space positions) keeps its sums in vector registers over
// the channels of its group, every kernel tap one vector load from the planes
// at a compile-time offset. The weights are re-laid out at compile time into
// blocks of MR output channels, [group][M/MR][K][MR] (K = channels x taps,
// taps innermost as in ONNX), so that the tile reads them contiguously. The
// epilogue adds bias, applies the activation and a fused residual Add and
// stores the valid lanes. Tiles are spread over the threads in chunks whose
// input window fits L2, the MR blocks of a chunk one after the other. A 1x1
// layer without stride or padding reads its input directly (no copy). A
// layer for which the channel-vectorised kernel (emit_conv_channels.cpp) or
// Winograd's F(2x2, 3x3) (emit_conv_winograd.cpp) is estimated cheaper runs
// there instead; depthwise convolutions (one channel per group) run in
// emit_depthwise.cpp.
#include <algorithm>
#include <cstdlib>

#include "emit_conv_layout.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

// Input bytes a chunk of tiles reads (all channels of its group): the MR
// blocks after the first find it in L2 (64 KiB measured best on ResNet-18
// and MobileNetV2 against 16 KiB to 1 MiB).
constexpr int64_t kChunkWindowBytes = 64 * 1024;

rt::Tensor constantOf(const StepBuilder& s, size_t i, const char* what) {
  const ir::Value* v = s.node().input(i);
  if (!v->isConstant()) s.fail(std::string(what) + " '" + v->name() + "' must be a constant for this target");
  return v->constant();
}

}  // namespace

rt::Tensor packPositionWeights(const float* w, int64_t group, int64_t mg, int64_t kdim, int64_t mr) {
  const int64_t mblocks = (mg + mr - 1) / mr;
  rt::Tensor packed(rt::DType::F32, {group * mblocks * kdim * mr});
  float* pw = packed.data<float>();
  for (int64_t g = 0; g < group; ++g)
    for (int64_t m = 0; m < mg; ++m)
      for (int64_t k = 0; k < kdim; ++k)
        pw[((g * mblocks + m / mr) * kdim + k) * mr + m % mr] = w[(g * mg + m) * kdim + k];
  return packed;
}

rt::Tensor packPositionBias(const float* bias, int64_t group, int64_t mg, int64_t mr) {
  const int64_t mblocks = (mg + mr - 1) / mr;
  rt::Tensor packed(rt::DType::F32, {group * mblocks * mr});
  if (bias)
    for (int64_t g = 0; g < group; ++g)
      for (int64_t m = 0; m < mg; ++m) packed.data<float>()[(g * mblocks + m / mr) * mr + m % mr] = bias[g * mg + m];
  return packed;
}

std::vector<Value*> emitPositionTileSums(StepEmitter& e, const PhasedInput& p, Value* planes, Value* x_base, Value* wp,
                                         Value* w_base, int64_t channels, int64_t valid,
                                         const std::vector<Value*>& start) {
  IRBuilder<>& b = e.b();
  const TargetTuning& tune = e.tuning();
  const int64_t mr = tune.gemm_rows, vl = tune.vector_width, nv = tune.gemm_vectors;
  const int64_t taps = static_cast<int64_t>(p.taps.size());
  Value* zero = b.CreateVectorSplat(vl, e.cf(0));
  std::vector<Value*> init(mr * nv, zero);
  if (!start.empty())
    for (int64_t r = 0; r < mr; ++r)
      for (int64_t v = 0; v < nv; ++v) init[r * nv + v] = start.at(r);
  return e.loopCarry(channels, init, [&](Value* c, const std::vector<Value*>& sums) {
    std::vector<Value*> next = sums;
    Value* xc = b.CreateAdd(x_base, b.CreateMul(c, e.c64(p.channelFloats())));
    Value* wc = b.CreateAdd(w_base, b.CreateMul(c, e.c64(taps * mr)));
    for (int64_t tap = 0; tap < taps; ++tap) {
      std::vector<Value*> cols;
      for (int64_t v = 0; v < nv; ++v) {
        Value* at = b.CreateAdd(xc, e.c64(p.taps[tap] + v * vl));
        const int64_t lanes = valid < 0 ? vl : std::clamp<int64_t>(valid - v * vl, 0, vl);
        if (lanes == vl) {
          cols.push_back(e.loadVec(planes, at, vl));
        } else if (lanes == 0) {
          cols.push_back(zero);
        } else {
          std::vector<Constant*> mask;
          for (int64_t j = 0; j < vl; ++j) mask.push_back(b.getInt1(j < lanes));
          Type* vt = e.vecF32(static_cast<int>(vl));
          cols.push_back(b.CreateMaskedLoad(vt, b.CreateBitCast(e.at(planes, at), vt->getPointerTo()), Align(4),
                                            ConstantVector::get(mask), zero));
        }
      }
      for (int64_t r = 0; r < mr; ++r) {
        Value* wv = b.CreateVectorSplat(vl, e.loadAt(e.f32(), wp, b.CreateAdd(wc, e.c64(tap * mr + r))));
        for (int64_t v = 0; v < nv; ++v)
          next[r * nv + v] = e.intrinsic(Intrinsic::fmuladd, {wv, cols[v], next[r * nv + v]});
      }
    }
    return next;
  });
}

void emitConv(StepBuilder& s) {
  if (s.fused_depthwise) {
    emitExpandDepthwise(s);
    return;
  }
  if (s.fused_pointwise) {
    emitDepthwisePointwise(s);
    return;
  }
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
  ConvEpilogue ep;
  ep.act = readActivation(s.node());
  if (s.fused_add) ep.post_act = readActivation(*s.fused_add);
  if (s.node().input(2) && !s.node().input(2)->isConstant()) s.fail("bias must be a constant for this target");

  if (group == channels && out_channels == channels) {
    emitDepthwiseConv(s, w, batch, channels, ep);
    return;
  }

  ConvGeometry geo;
  geo.w = w;
  geo.batch = batch;
  geo.channels = channels;
  geo.out_channels = out_channels;
  geo.group = group;
  geo.cg = channels / group;
  geo.mg = out_channels / group;
  geo.taps = w.k_h * w.k_w;
  constantOf(s, 1, "weights");

  // ---- GEMM over the phase planes
  const int64_t cg = geo.cg, mg = geo.mg;
  const int64_t taps = geo.taps, kdim = cg * taps;
  const TargetTuning& tune = s.tuning();
  const int64_t mr = tune.gemm_rows, vl = tune.vector_width, nv = tune.gemm_vectors, nr = vl * nv;
  const int64_t mblocks = (mg + mr - 1) / mr;
  const PhasedInput p = phasedInput(w, channels, nr);
  const int64_t qtiles = p.tiles(nr), plane_size = w.out_h * w.out_w;

  // The kernel that computes fewer multiply-add lanes: the channel-tiled one
  // charged for its scatter epilogue (about a K step per output vector),
  // Winograd for its transforms and weight traffic (measured on ResNet-18:
  // it wins by 15-25% on the 56x56 to 14x14 layers and loses on 7x7).
  // VDLA_LLVM_CONV_KERNEL=positions|channels|winograd overrides the choice
  // where the kernel applies (tests run layers through each; benchmarks).
  const int64_t position_lanes = qtiles * nr * mblocks * mr * kdim;
  const int64_t channel_lanes = channelTiledLanes(geo, tune);
  const int64_t scatter_lanes = (plane_size + mr - 1) * ((mg + nr - 1) / nr) * nv * nr * 8;
  bool channel_tiled = channel_lanes > 0 && channel_lanes + scatter_lanes < position_lanes * 19 / 20;
  const int64_t direct_lanes = channel_tiled ? channel_lanes + scatter_lanes : position_lanes;
  bool winograd = winogradApplies(geo) && winogradCost(geo, tune) < direct_lanes;
  if (const char* force = std::getenv("VDLA_LLVM_CONV_KERNEL")) {
    const std::string kernel = force;
    winograd = kernel == "winograd" ? winogradApplies(geo) : winograd && (kernel == "auto" || kernel.empty());
    if (kernel == "positions")
      channel_tiled = false;
    else if (kernel == "channels")
      channel_tiled = channel_lanes > 0;
    else if (kernel != "auto" && kernel != "winograd" && !kernel.empty())
      s.fail("VDLA_LLVM_CONV_KERNEL is '" + kernel + "'; expected positions, channels, winograd or auto");
  }
  if (winograd) {
    emitWinogradConv(s, geo, ep);
    return;
  }
  if (channel_tiled) {
    emitChannelTiledConv(s, geo, ep);
    return;
  }

  const rt::Tensor packed = packPositionWeights(constantOf(s, 1, "weights").data<float>(), group, mg, kdim, mr);
  const rt::Tensor bias =
      packPositionBias(s.node().input(2) ? s.node().input(2)->constant().data<float>() : nullptr, group, mg, mr);
  const int x_slot = s.useInput(0);
  const int w_slot = s.addConstant("packed_weights", packed);
  const int b_slot = s.addConstant("packed_bias", bias);
  if (s.residual) ep.residual = s.use(s.residual);
  // A 1x1 layer without stride or padding reads its input in place. When
  // its plane is not a whole number of tiles, the last tile of a plane
  // reads through masked loads (else it would read past the tensor, which
  // is why the layout needs slack) and no copy is made.
  const bool pointwise = p.sh == 1 && p.sw == 1 && p.pad_top == 0 && p.pad_left == 0 && p.hq == p.in_h &&
                         p.wq == p.in_w && p.taps.size() == 1 && p.taps[0] == 0;
  const bool direct = p.isInput() || pointwise;
  const int64_t full_tiles = pointwise ? p.positions() / nr : qtiles;  // tiles read without masks
  if (!direct) s.setWorkspace((batch * p.imageFloats() + p.slack) * 4, 0);

  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);

  // Phase 1: the input as phase planes.
  if (!direct) emitPhasedInputPass(e, p, x_slot, batch);

  // Phase 2: one (image, group, chunk of tiles, MR block) per index; inside,
  // the chunk's tiles one after the other. A chunk's input window is sized
  // for L2 (kChunkWindowBytes), so the MR blocks after the first read it
  // from there, the block's weights stay in L1/L2 across its tiles, and the
  // stores go to MR output rows in order.
  const int64_t window_floats = std::max<int64_t>(nr, kChunkWindowBytes / 4 / cg);
  const int64_t chunk =
      splitForThreads(std::min(qtiles, std::max<int64_t>(1, window_floats / nr)), qtiles, batch * group * mblocks);
  const int64_t chunks = (qtiles + chunk - 1) / chunk;
  e.parallelFor(batch * group * chunks * mblocks, [&](Value* index) {
    Value* planes = direct ? e.tensor(x_slot, e.f32()) : e.sharedWorkspace(e.f32());
    Value* wp = e.tensor(w_slot, e.f32());
    Value* bp = e.tensor(b_slot, e.f32());
    Value* mb = b.CreateSRem(index, e.c64(mblocks));
    Value* rest = b.CreateSDiv(index, e.c64(mblocks));
    Value* first_tile = b.CreateMul(b.CreateSRem(rest, e.c64(chunks)), e.c64(chunk));
    Value* end_tile = b.CreateAdd(first_tile, e.c64(chunk));
    end_tile = b.CreateSelect(b.CreateICmpSLT(end_tile, e.c64(qtiles)), end_tile, e.c64(qtiles));
    Value* ng = b.CreateSDiv(rest, e.c64(chunks));
    Value* n = b.CreateSDiv(ng, e.c64(group));
    Value* g = b.CreateSRem(ng, e.c64(group));
    Value* gm = b.CreateAdd(b.CreateMul(g, e.c64(mblocks)), mb);  // block index in the packed weights
    Value* w_base = b.CreateMul(gm, e.c64(kdim * mr));
    Value* first_channel = b.CreateAdd(b.CreateMul(n, e.c64(channels)), b.CreateMul(g, e.c64(cg)));
    auto tile = [&](Value* qt, int64_t valid) {
      Value* q0 = b.CreateMul(qt, e.c64(nr));
      Value* x_base = b.CreateAdd(b.CreateMul(first_channel, e.c64(p.channelFloats())), q0);
      std::vector<Value*> biases;
      for (int64_t r = 0; r < mr; ++r)
        biases.push_back(
            b.CreateVectorSplat(vl, e.loadAt(e.f32(), bp, b.CreateAdd(b.CreateMul(gm, e.c64(mr)), e.c64(r)))));
      std::vector<Value*> acc = emitPositionTileSums(e, p, planes, x_base, wp, w_base, cg, valid, biases);
      // Row r is output channel g*mg + mb*mr + r.
      std::vector<TileRow> rows(mr);
      for (int64_t r = 0; r < mr; ++r) {
        Value* m = b.CreateAdd(b.CreateMul(mb, e.c64(mr)), e.c64(r));
        Value* oc = b.CreateAdd(b.CreateMul(g, e.c64(mg)), m);
        rows[r].plane_base = b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(out_channels)), oc), e.c64(plane_size));
        if (mg % mr != 0) rows[r].enabled = b.CreateICmpSLT(m, e.c64(mg));
        rows[r].vectors.assign(acc.begin() + r * nv, acc.begin() + (r + 1) * nv);
      }
      storeTile(e, p, ep, q0, rows, y_slot);
    };
    Value* full_end = b.CreateSelect(b.CreateICmpSLT(end_tile, e.c64(full_tiles)), end_tile, e.c64(full_tiles));
    e.loop(first_tile, full_end, [&](Value* qt) { tile(qt, -1); });
    if (full_tiles < qtiles)
      e.when(b.CreateICmpEQ(end_tile, e.c64(qtiles)),
             [&] { tile(e.c64(full_tiles), p.positions() - full_tiles * nr); });
  });
  e.finish();
}

}  // namespace vdla::cpu
