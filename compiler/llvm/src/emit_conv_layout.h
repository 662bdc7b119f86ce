// The input layout the fp32 convolutions compute from, and the store of
// their results.
//
// A convolution with strides (sh, sw) reads its zero-padded input at rows
// oh*sh + kh*dh and columns ow*sw + kw*dw. Splitting the padded plane into
// sh x sw phase planes (padded row r goes to phase r % sh, row r / sh; alike
// for columns) turns every tap into a stride-1 access: tap (kh, kw) reads
// phase ((kh*dh) % sh, (kw*dw) % sw) shifted by ((kh*dh) / sh, (kw*dw) / sw).
// Output positions are then numbered in "phase space", q = oh * wq + ow with
// the phase plane's width wq >= out_w, so that tap t of position q reads
// plane[q + taps[t]] and NR consecutive positions are NR consecutive floats:
// one vector load per tap, no im2col copy and no index arithmetic in the
// inner loop. Positions with ow >= out_w are computed and dropped (they cost
// (wq - out_w) / wq of the work: 2 columns of 58 for a 3x3 layer on 56x56);
// storeTile() writes only the valid lanes.
#pragma once

#include <vector>

#include "step_builder.h"

namespace vdla::cpu {

struct PhasedInput {
  int64_t channels = 0;  // planes per image in the layout
  int64_t in_h = 0, in_w = 0, pad_top = 0, pad_left = 0;
  int64_t sh = 1, sw = 1;  // strides: phases per dimension
  int64_t hq = 0, wq = 0;  // size of one phase plane
  int64_t out_h = 0, out_w = 0;
  std::vector<int64_t> taps;  // offset of tap (kh, kw) from q, kh-major as in the weights
  int64_t slack = 0;          // zero floats after the last channel (reads of dropped positions past it)

  int64_t channelFloats() const { return sh * sw * hq * wq; }
  int64_t imageFloats() const { return channels * channelFloats(); }
  // Positions of phase space and the number of tiles of `width` covering them.
  int64_t positions() const { return out_h * wq; }
  int64_t tiles(int64_t width) const { return (positions() + width - 1) / width; }
  // Whether the input tensor itself is this layout (stride 1, no padding,
  // planes of the input's size; 1x1 layers) and nothing reads past it: the
  // kernels then skip the copy and read the input.
  bool isInput() const {
    return sh == 1 && sw == 1 && pad_top == 0 && pad_left == 0 && hq == in_h && wq == in_w && slack == 0;
  }
};

// Layout of a convolution with window `w` over `channels` planes per image,
// computed in tiles of `tile_width` positions (which fixes the slack).
PhasedInput phasedInput(const Window2& w, int64_t channels, int64_t tile_width);

// Writes the input plane at x[src ...] (in_h x in_w floats) as its phase
// planes at dst[dst_offset ...] (channelFloats() floats, padding zeroed);
// only the phase planes of row phase `only_row_phase` when it is >= 0.
void emitPhasedPlaneCopy(StepEmitter& e, const PhasedInput& p, llvm::Value* x, llvm::Value* src, llvm::Value* dst,
                         llvm::Value* dst_offset, int64_t only_row_phase = -1);
// Zeroes the slack that follows dst[floats - 1].
void emitZeroSlack(StepEmitter& e, const PhasedInput& p, llvm::Value* dst, llvm::Value* floats);
// The whole input (tensor slot x_slot, `batch` images) as phase planes in the
// shared workspace (which must hold batch * imageFloats() + slack floats):
// one parallel pass, one (image, channel) plane per index.
void emitPhasedInputPass(StepEmitter& e, const PhasedInput& p, int x_slot, int64_t batch);

// The chunk size (in tiles of `tiles`) a kernel should use instead of
// `chunk` (sized for the cache), with `others` tasks per chunk (channel
// blocks; images and groups): the one down to half of it that spreads the
// tiles most evenly over two threads. A 7x7 layer of 5 output-channel
// blocks in one chunk left one thread idle for a fifth of it; 576 to 96
// channels on 14x14 in chunks of 8 and 6 rows, for a seventh. (Balancing
// over 2 and 4 threads with chunks of any size was tried: the small chunks
// it picks re-read the weights more often and lose more.) Among sizes as
// even, it takes one where the threads' halves meet between chunks (each
// thread then writes a contiguous half of every output plane). With
// `chunks_fastest` the kernel numbers its tasks [block][chunk] rather than
// [chunk][block].
int64_t splitForThreads(int64_t chunk, int64_t tiles, int64_t others, bool chunks_fastest = false);

// What a tile's epilogue applies: bias, the Conv's own activation, a fused
// residual Add (read at the output's index) and the Add's activation.
struct ConvEpilogue {
  Activation act;
  int residual = -1;  // slot of the fused Add's other operand
  Activation post_act;
};

// One output channel's row of a tile: consecutive vectors from phase-space
// position q0 on, stored at y[plane_base + oh * out_w + ow] when `enabled`
// (an i1, or nullptr for always) with `bias` (a vector splat; nullptr when
// the sums started from it) added.
struct TileRow {
  llvm::Value* plane_base = nullptr;
  llvm::Value* bias = nullptr;
  llvm::Value* enabled = nullptr;
  std::vector<llvm::Value*> vectors;
};

// Stores the rows of a tile, applying the epilogue; lanes outside the output
// are not written. A tile lying within the valid columns of one output row
// (always so for 1x1 layers without padding) takes plain vector stores,
// others store lane-selectively (llvm.masked.compressstore: the valid lanes
// of a vector are consecutive outputs once the dropped columns are removed).
void storeTile(StepEmitter& e, const PhasedInput& p, const ConvEpilogue& ep, llvm::Value* q0,
               const std::vector<TileRow>& rows, int y_slot);
// The same into y (f32*), reading the residual (if ep has one) from res.
void storeTile(StepEmitter& e, const PhasedInput& p, const ConvEpilogue& ep, llvm::Value* q0,
               const std::vector<TileRow>& rows, llvm::Value* y, llvm::Value* res);

// The sums of one MR x NR tile of the position-vectorised kernel
// (emit_conv.cpp): positions x[x_base + tap offset ...] of `channels`
// input channels (p.channelFloats() apart) against packed weights
// w[w_base ...] laid out [channel][tap][MR]. Returns MR x NV vectors, row
// major. With `valid` >= 0 only the first `valid` positions of the tile
// are read (masked loads, zeros beyond), so that a tile at the end of an
// input read in place does not read past it. Row r's sums start from
// start[r] (the bias: one add less per vector in the epilogue), or from
// zero when `start` is empty.
std::vector<llvm::Value*> emitPositionTileSums(StepEmitter& e, const PhasedInput& p, llvm::Value* x,
                                               llvm::Value* x_base, llvm::Value* w, llvm::Value* w_base,
                                               int64_t channels, int64_t valid = -1,
                                               const std::vector<llvm::Value*>& start = {});
// Weights [M][cg * taps] (group-major M) packed as [group][M/MR][cg * taps][MR]
// for emitPositionTileSums, rows past M zero; the bias padded alike.
rt::Tensor packPositionWeights(const float* w, int64_t group, int64_t mg, int64_t kdim, int64_t mr);
rt::Tensor packPositionBias(const float* bias, int64_t group, int64_t mg, int64_t mr);

// A grouped convolution's sizes (cg, mg: input and output channels per group).
struct ConvGeometry {
  Window2 w;
  int64_t batch = 0, channels = 0, out_channels = 0, group = 1, cg = 0, mg = 0, taps = 0;
};

// The convolution with MR' output positions x NR' output channels per tile,
// vectorised over output channels (emit_conv_channels.cpp): no lane is spent
// on dropped phase-space columns or on rounding small planes up to NR.
// channelTiledLanes() is the multiply-add lanes it computes per image and
// group, for choosing it against the position-vectorised kernel.
int64_t channelTiledLanes(const ConvGeometry& c, const TargetTuning& tune);
void emitChannelTiledConv(StepBuilder& s, const ConvGeometry& c, const ConvEpilogue& ep);

// 3x3 stride-1 convolutions (group 1) by Winograd's F(2x2, 3x3)
// (emit_conv_winograd.cpp); winogradCost() is its time per image in
// multiply-add lanes: the 16 matrix products, the transforms and the
// memory traffic of the transformed operands.
bool winogradApplies(const ConvGeometry& c);
int64_t winogradCost(const ConvGeometry& c, const TargetTuning& tune);
void emitWinogradConv(StepBuilder& s, const ConvGeometry& c, const ConvEpilogue& ep);

// Depthwise convolution (one input channel per group, one output channel
// each), vectorised along phase-space positions (emit_depthwise.cpp).
void emitDepthwiseConv(StepBuilder& s, const Window2& w, int64_t batch, int64_t channels, const ConvEpilogue& ep);

// The compile-time plan of a depthwise layer, and the code of one plane:
// input plane x[x_plane ...] (in_h x in_w floats), channel c's taps at
// wt[c * taps ...] and bias at bias[c] (bias may be null), output plane
// y[y_plane ...], a residual read at the output's index when `res` is not
// null, and `pad` (plane_floats floats of this thread's scratch memory).
// Output rows [oh_begin, oh_end) only when given (direct plans: the others
// copy the whole plane first).
struct DepthwisePlan {
  Window2 w;
  PhasedInput p;
  int64_t vl = 0, row_vectors = 0, tail = 0;
  int64_t plane_floats = 0;  // scratch floats per plane: its phase planes, or one zero row
  bool direct = false;       // stride-1 or stride-2 3x3 layer reading the input rows in place
};
DepthwisePlan depthwisePlan(const Window2& w, const TargetTuning& tune);

void emitDepthwisePlane(StepEmitter& e, const DepthwisePlan& d, const ConvEpilogue& ep, llvm::Value* x,
                        llvm::Value* x_plane, llvm::Value* wt, llvm::Value* bias, llvm::Value* c, llvm::Value* y,
                        llvm::Value* y_plane, llvm::Value* res, llvm::Value* pad, llvm::Value* oh_begin = nullptr,
                        llvm::Value* oh_end = nullptr);

// A 1x1 expansion Conv and the depthwise Conv after it, checked by
// emitExpandDepthwise (emit_expand_depthwise.cpp), which runs the pair
// vectorised along positions; on small planes the variant of
// emit_expand_depthwise_channels.cpp, vectorised along channels, wastes
// fewer lanes where channelMajorFits() says it applies.
struct ExpandDepthwise {
  int64_t batch = 0, channels = 0, expanded = 0;
  Window2 expand, depthwise;
  Activation expand_act, depthwise_act;
};
bool channelMajorFits(const ExpandDepthwise& f, const TargetTuning& tune);
void emitExpandDepthwiseByChannels(StepBuilder& s, const ExpandDepthwise& f);

// Whether a depthwise layer with window `w` can run band by band inside the
// fused depthwise + 1x1 step (emit_depthwise_pointwise.cpp): its plan reads
// input rows in place.
bool depthwiseReadsRowsInPlace(const Window2& w, const TargetTuning& tune);

}  // namespace vdla::cpu
