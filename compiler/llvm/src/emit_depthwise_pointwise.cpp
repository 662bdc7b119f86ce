// A depthwise Conv and the 1x1 Conv that reads its output, as one step
// (MobileNetV2's first block: 32 channels of 112x112, a 1.6 MB tensor that
// the unfused pair writes to memory and reads back).
//
// Each task is (image, band of output rows). It runs the depthwise layer
// for every channel over the band's rows (emit_depthwise.cpp, reading the
// input rows in place; the band sized so that all channels' rows take
// kBandBytes, in L1) into the thread's scratch memory, then the 1x1 layer
// over the band's positions with the position micro-kernel of
// emit_conv.cpp, its tiles running across the band's rows (a band is one
// stretch of positions of every output plane), the last one masked when
// the band is not a whole number of tiles. The 1x1 layer needs all
// channels of a position and the depthwise layer none of its neighbours'
// outputs, so bands need no halo and nothing is computed twice.
#include <algorithm>

#include "emit_conv_layout.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

// Scratch bytes of one band's depthwise outputs (all channels).
constexpr int64_t kBandBytes = 32 * 1024;

// The layout of a band of `rows` rows of `width` positions as the input of
// the 1x1 layer: one plane per channel, read in place.
PhasedInput bandLayout(int64_t channels, int64_t rows, int64_t width) {
  Window2 w{};
  w.in_h = w.out_h = rows;
  w.in_w = w.out_w = width;
  w.k_h = w.k_w = w.stride_h = w.stride_w = w.dil_h = w.dil_w = 1;
  PhasedInput p = phasedInput(w, channels, 1);
  p.slack = 0;  // the last tile is masked instead
  return p;
}

}  // namespace

void emitDepthwisePointwise(StepBuilder& s) {
  const ir::Node& pw = *s.fused_pointwise;
  s.requireF32();
  const rt::Shape& x = s.inputType(0).shape;
  const rt::Shape& dshape = s.inputType(1).shape;
  const ir::Value* mid_value = s.node().output(0);
  const rt::Shape& mid = mid_value->type().shape;
  const rt::Shape& y = s.outputType().shape;
  auto fail = [&](const std::string& why) { s.fail("with 1x1 " + pw.describe() + ": " + why); };
  if (x.size() != 4 || dshape.size() != 4 || mid.size() != 4 || y.size() != 4) fail("both Convs must be 2-D");
  const int64_t batch = x[0], channels = x[1];
  if (s.node().attrs().getInt("group", 1) != channels || dshape[0] != channels || dshape[1] != 1 || mid[1] != channels)
    fail("the first Conv must be depthwise");
  if (!s.node().input(1)->isConstant() || (s.node().input(2) && !s.node().input(2)->isConstant()))
    fail("the depthwise weights and bias must be constants for this target");
  if (pw.numInputs() < 2 || pw.input(0) != mid_value || !pw.input(1) || !pw.input(1)->isConstant() ||
      (pw.numInputs() > 2 && pw.input(2) && !pw.input(2)->isConstant()))
    fail("the 1x1 Conv must read the depthwise output and have constant weights and bias");
  const rt::Shape& pshape = pw.input(1)->type().shape;
  const int64_t out_channels = pshape[0];
  if (pshape.size() != 4 || pshape[1] != channels || pshape[2] != 1 || pshape[3] != 1 ||
      pw.attrs().getInt("group", 1) != 1 || y[1] != out_channels || pw.output(0)->type().dtype != rt::DType::F32)
    fail("the second Conv must be an ungrouped 1x1 Conv");

  const Window2 dw = resolveWindow2(s, x, mid, dshape[2], dshape[3]);
  const Window2 pww = resolveWindow2(pw, mid, y, 1, 1);
  if (pww.stride_h != 1 || pww.stride_w != 1 || pww.pad_top != 0 || pww.pad_left != 0 || pww.out_h != dw.out_h ||
      pww.out_w != dw.out_w)
    fail("the 1x1 Conv must have stride 1 and no padding");
  const TargetTuning& tune = s.tuning();
  const DepthwisePlan d = depthwisePlan(dw, tune);
  if (!d.direct) fail("the depthwise Conv must read its input rows in place");
  ConvEpilogue dw_ep, pw_ep;
  dw_ep.act = readActivation(s.node());
  pw_ep.act = readActivation(pw);

  const int64_t mr = tune.gemm_rows, vl = tune.vector_width, nv = tune.gemm_vectors, nr = vl * nv;
  const int64_t out_h = dw.out_h, out_w = dw.out_w, out_plane = out_h * out_w;
  const int64_t rows = std::clamp<int64_t>(kBandBytes / 4 / (channels * out_w), 1, out_h);
  const int64_t bands = (out_h + rows - 1) / rows, last_rows = out_h - (bands - 1) * rows;
  const int64_t mblocks = (out_channels + mr - 1) / mr;
  const int64_t band_floats = (channels * rows * out_w + 15) / 16 * 16;
  const int64_t thread_floats = band_floats + (d.plane_floats + 15) / 16 * 16;

  const int x_slot = s.useInput(0), dw_slot = s.useInput(1), dwb_slot = s.useInput(2);
  const int w_slot =
      s.addConstant("packed_pointwise_weights",
                    packPositionWeights(pw.input(1)->constant().data<float>(), 1, out_channels, channels, mr));
  const int b_slot = s.addConstant(
      "packed_pointwise_bias",
      packPositionBias(pw.numInputs() > 2 && pw.input(2) ? pw.input(2)->constant().data<float>() : nullptr, 1,
                       out_channels, mr));
  s.setWorkspace(0, thread_floats * 4);

  StepEmitter& e = s.code();
  IRBuilder<>& b = e.b();
  const int y_slot = s.output(0);
  e.parallelFor(batch * bands, [&](Value* index) {
    Value* band = b.CreateSRem(index, e.c64(bands));
    Value* n = b.CreateSDiv(index, e.c64(bands));
    Value* buffer = e.threadWorkspace(0, thread_floats * 4, e.f32());
    Value* pad = e.at(buffer, e.c64(band_floats));
    Value* r0 = b.CreateMul(band, e.c64(rows));
    Value* r1 = b.CreateAdd(r0, e.c64(rows));
    r1 = b.CreateSelect(b.CreateICmpSLT(r1, e.c64(out_h)), r1, e.c64(out_h));
    Value* band_rows = b.CreateSub(r1, r0);
    // The depthwise outputs of the band, channel after channel, band_rows x
    // out_w floats each (output row oh of channel c at c * band_rows *
    // out_w + (oh - r0) * out_w).
    e.loop(0, channels, [&](Value* c) {
      Value* x_plane = b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(channels)), c), e.c64(dw.in_h * dw.in_w));
      Value* d_plane = b.CreateMul(b.CreateSub(b.CreateMul(c, band_rows), r0), e.c64(out_w));
      emitDepthwisePlane(e, d, dw_ep, e.tensor(x_slot, e.f32()), x_plane, e.tensor(dw_slot, e.f32()),
                         dwb_slot >= 0 ? e.tensor(dwb_slot, e.f32()) : nullptr, c, buffer, d_plane, nullptr, pad, r0,
                         r1);
    });
    // The 1x1 layer over the band's positions, MR output channels at a time.
    auto pointwise = [&](int64_t band_height) {
      const PhasedInput p = bandLayout(channels, band_height, out_w);
      const int64_t positions = band_height * out_w, tiles = (positions + nr - 1) / nr, full = positions / nr;
      e.loop(0, mblocks, [&](Value* mb) {
        Value* wp = e.tensor(w_slot, e.f32());
        Value* bp = e.tensor(b_slot, e.f32());
        Value* w_base = b.CreateMul(mb, e.c64(channels * mr));
        std::vector<Value*> biases;
        for (int64_t r = 0; r < mr; ++r)
          biases.push_back(
              b.CreateVectorSplat(vl, e.loadAt(e.f32(), bp, b.CreateAdd(b.CreateMul(mb, e.c64(mr)), e.c64(r)))));
        auto tile = [&](Value* qt, int64_t valid) {
          Value* q0 = b.CreateMul(qt, e.c64(nr));
          std::vector<Value*> acc = emitPositionTileSums(e, p, buffer, q0, wp, w_base, channels, valid, biases);
          std::vector<TileRow> out_rows(mr);
          for (int64_t r = 0; r < mr; ++r) {
            Value* m = b.CreateAdd(b.CreateMul(mb, e.c64(mr)), e.c64(r));
            Value* plane = b.CreateMul(b.CreateAdd(b.CreateMul(n, e.c64(out_channels)), m), e.c64(out_plane));
            out_rows[r].plane_base = b.CreateAdd(plane, b.CreateMul(r0, e.c64(out_w)));
            if (out_channels % mr != 0) out_rows[r].enabled = b.CreateICmpSLT(m, e.c64(out_channels));
            out_rows[r].vectors.assign(acc.begin() + r * nv, acc.begin() + (r + 1) * nv);
          }
          storeTile(e, p, pw_ep, q0, out_rows, e.tensor(y_slot, e.f32()), nullptr);
        };
        e.loop(0, full, [&](Value* qt) { tile(qt, -1); });
        if (tiles > full) tile(e.c64(full), positions - full * nr);
      });
    };
    if (last_rows == rows) {
      pointwise(rows);
    } else {
      Value* is_last = b.CreateICmpEQ(band, e.c64(bands - 1));
      e.when(b.CreateNot(is_last), [&] { pointwise(rows); });
      e.when(is_last, [&] { pointwise(last_rows); });
    }
  });
  e.finish();
}

}  // namespace vdla::cpu
