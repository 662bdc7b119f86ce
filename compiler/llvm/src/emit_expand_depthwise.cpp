// A 1x1 "expansion" Conv and the depthwise Conv that reads its output, as
// one step (the first half of MobileNetV2's inverted residual blocks). The
// expanded tensor is the largest of such a block (96x112x112 floats, 4.8 MB,
// in MobileNetV2's second block) and the unfused pair writes it to memory
// and reads it back; here it never leaves the cache.
//
// Each task is (image, block of MR expanded channels): it computes the
// block's MR whole planes with the position-vectorised micro-kernel of
// emit_conv.cpp (input read in place: 1x1 layers need no copy) into the
// thread's scratch memory, applying the expansion's bias and activation,
// then runs the depthwise layer over those planes (emit_depthwise.cpp) and
// writes only its output. Depthwise channel c reads expanded channel c
// alone, so a block needs no halo and nothing is computed twice. The
// block's planes (MR x H x W floats: 400 KB on 112x112) stay in L2 between
// the two halves, and so does the input, which every block reads again.
// Fewer, larger tasks than the two steps had also mean one parallel loop
// where there were two. On several threads a task is (image, band of output
// rows, channel block) instead (see below), so that each thread writes the
// rows the next 1x1 layer will have it read.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "emit_conv_layout.h"

namespace vdla::cpu {

using namespace llvm;

void emitExpandDepthwise(StepBuilder& s) {
  const ir::Node& dw = *s.fused_depthwise;
  s.requireF32();
  const rt::Shape& x = s.inputType(0).shape;
  const rt::Shape& wshape = s.inputType(1).shape;
  const ir::Value* mid_value = s.node().output(0);
  const rt::Shape& mid = mid_value->type().shape;
  const rt::Shape& y = s.outputType().shape;
  auto fail = [&](const std::string& why) { s.fail("with depthwise " + dw.describe() + ": " + why); };
  if (x.size() != 4 || wshape.size() != 4 || mid.size() != 4 || y.size() != 4 || wshape[2] != 1 || wshape[3] != 1)
    fail("the fused expansion must be a 2-D 1x1 Conv");
  const int64_t batch = x[0], channels = x[1], expanded = wshape[0];
  if (s.node().attrs().getInt("group", 1) != 1 || channels != wshape[1] || mid[1] != expanded)
    fail("the fused expansion must be an ungrouped Conv");
  if (dw.numInputs() < 2 || dw.input(0) != mid_value || !dw.input(1) || !dw.input(1)->isConstant() ||
      (dw.numInputs() > 2 && dw.input(2) && !dw.input(2)->isConstant()))
    fail("the depthwise Conv must read the expansion and have constant weights and bias");
  const rt::Shape& dshape = dw.input(1)->type().shape;
  if (dw.attrs().getInt("group", 1) != expanded || dshape.size() != 4 || dshape[0] != expanded || dshape[1] != 1 ||
      y[1] != expanded || dw.output(0)->type().dtype != rt::DType::F32)
    fail("the second Conv must be depthwise over the expanded channels");
  if (s.node().input(2) && !s.node().input(2)->isConstant()) fail("bias must be a constant for this target");
  if (!s.node().input(1)->isConstant()) fail("weights must be a constant for this target");

  const Window2 ew = resolveWindow2(s, x, mid, 1, 1);
  const Window2 dww = resolveWindow2(dw, mid, y, dshape[2], dshape[3]);
  const TargetTuning& tune = s.tuning();
  const int64_t mr = tune.gemm_rows, vl = tune.vector_width, nv = tune.gemm_vectors, nr = vl * nv;
  // Positions are the input's own (1x1, stride 1, no padding): the tiles
  // read it in place, the last one, when it reaches past the plane, through
  // masked loads (so nothing past the tensor is read and no slack is needed).
  PhasedInput p = phasedInput(ew, channels, nr);
  p.slack = 0;
  if (!p.isInput()) fail("the fused expansion must have stride 1 and no padding");
  const DepthwisePlan d = depthwisePlan(dww, tune);
  ConvEpilogue expand_ep, dw_ep;
  expand_ep.act = readActivation(s.node());
  dw_ep.act = readActivation(dw);

  const int64_t plane = ew.in_h * ew.in_w, out_plane = dww.out_h * dww.out_w;
  const int64_t qtiles = p.tiles(nr), mblocks = (expanded + mr - 1) / mr;
  // Small planes round badly up to position tiles (49 positions of 7x7 take
  // 64 lanes, 196 of 14x14 take 224): vectorise over channels instead when
  // that wastes less.
  // VDLA_LLVM_CONV_KERNEL=positions|channels forces one (tests, benchmarks).
  ExpandDepthwise f{batch, channels, expanded, ew, dww, expand_ep.act, dw_ep.act};
  bool by_channels = channelMajorFits(f, tune) && qtiles * nr > plane + plane / 16;
  if (const char* force = std::getenv("VDLA_LLVM_CONV_KERNEL")) {
    const std::string kernel = force;
    if (kernel == "positions") by_channels = false;
    if (kernel == "channels") by_channels = channelMajorFits(f, tune);
  }
  if (by_channels) {
    emitExpandDepthwiseByChannels(s, f);
    return;
  }
  // On several threads the output rows are split into two bands, a task
  // being (image, band, channel block) and computing only the expanded
  // rows its band reads (a halo of a row or two computed twice): the first
  // thread then writes the top half of every output plane, which is what
  // it reads in the 1x1 layer after this one (whose tasks go by positions),
  // instead of half the channels of every position, half of which would
  // come from the other core's cache. One thread keeps whole planes.
  const bool banded = d.direct && dww.out_h >= 2;  // the other depthwise plans copy whole planes
  // Expanded planes 64-byte aligned, then the depthwise layer's scratch.
  const int64_t stride = (plane + 15) / 16 * 16;
  const int64_t thread_floats = mr * stride + (d.plane_floats + 15) / 16 * 16;

  const int x_slot = s.useInput(0);
  const int w_slot = s.addConstant(
      "packed_weights", packPositionWeights(s.node().input(1)->constant().data<float>(), 1, expanded, channels, mr));
  const int b_slot = s.addConstant(
      "packed_bias",
      packPositionBias(s.node().input(2) ? s.node().input(2)->constant().data<float>() : nullptr, 1, expanded, mr));
  const int dw_slot = s.use(dw.input(1));
  const int dwb_slot = dw.numInputs() > 2 && dw.input(2) ? s.use(dw.input(2)) : -1;
  s.setWorkspace(0, thread_floats * 4);

  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  // Output rows of a band and the input rows its depthwise layer reads.
  struct Band {
    int64_t oh0, oh1, ih0, ih1;
  };
  auto bandsOf = [&](int64_t bands) {
    const int64_t band_rows = (dww.out_h + bands - 1) / bands;
    std::vector<Band> list;
    for (int64_t k = 0; k < bands; ++k) {
      Band band;
      band.oh0 = k * band_rows;
      band.oh1 = std::min(dww.out_h, band.oh0 + band_rows);
      if (band.oh0 >= band.oh1) break;
      band.ih0 = bands == 1 ? 0 : std::clamp<int64_t>(band.oh0 * dww.stride_h - dww.pad_top, 0, ew.in_h);
      band.ih1 = bands == 1
                     ? ew.in_h
                     : std::clamp<int64_t>((band.oh1 - 1) * dww.stride_h - dww.pad_top + (dww.k_h - 1) * dww.dil_h + 1,
                                           band.ih0, ew.in_h);
      list.push_back(band);
    }
    return list;
  };
  auto emitSplit = [&](const std::vector<Band>& band_list) {
    const int64_t nbands = static_cast<int64_t>(band_list.size());
    e.parallelFor(batch * nbands * mblocks, [&](Value* index) {
      Value* mb = b.CreateSRem(index, e.c64(mblocks));
      Value* band_index = b.CreateSRem(b.CreateSDiv(index, e.c64(mblocks)), e.c64(nbands));
      Value* n = b.CreateSDiv(index, e.c64(mblocks * nbands));
      Value* buffer = e.threadWorkspace(0, thread_floats * 4, e.f32());
      Value* pad = e.at(buffer, e.c64(mr * stride));
      Value* xp = e.tensor(x_slot, e.f32());
      Value* wp = e.tensor(w_slot, e.f32());
      Value* bp = e.tensor(b_slot, e.f32());
      Value* first = b.CreateMul(mb, e.c64(mr));  // first expanded channel of the block
      Value* w_base = b.CreateMul(mb, e.c64(channels * mr));
      Value* x_image = b.CreateMul(n, e.c64(channels * plane));
      auto run_band = [&](const Band& band) {
        // The band's input rows as planes of their own: positions
        // [ih0 * W, ih1 * W) of the input, computed in tiles, the partial
        // last tile (if any) masked.
        const int64_t positions = (band.ih1 - band.ih0) * ew.in_w;
        const int64_t tiles = (positions + nr - 1) / nr, full = positions / nr;
        Window2 bw = ew;
        bw.in_h = bw.out_h = band.ih1 - band.ih0;
        PhasedInput pb = phasedInput(bw, channels, nr);
        pb.slack = 0;
        Value* x_band = b.CreateAdd(x_image, e.c64(band.ih0 * ew.in_w));
        auto tile = [&](Value* qt, int64_t valid) {
          Value* q0 = b.CreateMul(qt, e.c64(nr));
          std::vector<Value*> biases;
          for (int64_t r = 0; r < mr; ++r)
            biases.push_back(b.CreateVectorSplat(vl, e.loadAt(e.f32(), bp, b.CreateAdd(first, e.c64(r)))));
          std::vector<Value*> acc =
              emitPositionTileSums(e, p, xp, b.CreateAdd(x_band, q0), wp, w_base, channels, valid, biases);
          std::vector<TileRow> rows(mr);
          for (int64_t r = 0; r < mr; ++r) {
            rows[r].plane_base = e.c64(r * stride);
            if (expanded % mr != 0) rows[r].enabled = b.CreateICmpSLT(b.CreateAdd(first, e.c64(r)), e.c64(expanded));
            rows[r].vectors.assign(acc.begin() + r * nv, acc.begin() + (r + 1) * nv);
          }
          storeTile(e, pb, expand_ep, q0, rows, buffer, nullptr);
        };
        e.loop(0, full, [&](Value* qt) { tile(qt, -1); });
        if (tiles > full) tile(e.c64(full), positions - full * nr);
        // The depthwise layer over the band's output rows, channel by channel
        // (input row ih of plane r at buffer[r * stride + (ih - ih0) * W]).
        Value* left = b.CreateSub(e.c64(expanded), first);
        Value* count = b.CreateSelect(b.CreateICmpSLT(left, e.c64(mr)), left, e.c64(mr));
        e.loop(e.c64(0), count, [&](Value* r) {
          Value* c = b.CreateAdd(first, r);
          Value* y_plane = b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(expanded)), c), e.c64(out_plane));
          Value* x_plane = b.CreateSub(b.CreateMul(r, e.c64(stride)), e.c64(band.ih0 * ew.in_w));
          emitDepthwisePlane(e, d, dw_ep, buffer, x_plane, e.tensor(dw_slot, e.f32()),
                             dwb_slot >= 0 ? e.tensor(dwb_slot, e.f32()) : nullptr, c, e.tensor(y_slot, e.f32()),
                             y_plane, nullptr, pad, e.c64(band.oh0), e.c64(band.oh1));
        });
      };
      if (nbands == 1) {
        run_band(band_list[0]);
      } else {
        for (int64_t k = 0; k < nbands; ++k)
          e.when(b.CreateICmpEQ(band_index, e.c64(k)), [&] { run_band(band_list[k]); });
      }
    });
  };
  if (!banded) {
    emitSplit(bandsOf(1));
  } else {
    Value* several = b.CreateICmpSGT(e.numThreads(), e.c64(1));
    e.when(several, [&] { emitSplit(bandsOf(2)); });
    e.when(b.CreateNot(several), [&] { emitSplit(bandsOf(1)); });
  }
  e.finish();
}

}  // namespace vdla::cpu
