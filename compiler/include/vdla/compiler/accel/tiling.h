// Tiling of a convolution onto the accelerator's on-chip buffers, chosen by
// searching every tile shape that fits against an analytic cost model.
//
// A layer is computed in output tiles of `rows` x `cols` output pixels x
// `oc_blocks` output-channel blocks; each output tile accumulates
// over reduction chunks of `ic_blocks` input-channel blocks, and each chunk is
// one "load tile": its input rows and weights are loaded, then one GEMM
// instruction consumes them. With latency hiding every buffer is split in two
// halves used by alternating tiles (virtual threads), so the loads of one tile
// and the store of another overlap the compute of a third.
//
// A depthwise layer on a config with DWGEMM (depthwise_gemm.h) has a second
// kind of plan: each load tile is the input planes of the tile's oc blocks
// and one DWGEMM instead of the GEMM. The search tries both kinds and keeps
// the cheaper.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/hw/config.h"

namespace vdla::accel {

// A layer that cannot run on a config (no tiling fits its buffers, ...): a
// placement decision, which the lowering turns into a CPU step with this
// message as the reason. Every other exception while lowering a layer is an
// internal error and fails the compile.
struct DoesNotFit : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Fixed costs of the cost model, in accelerator cycles: a DMA instruction
// waits about one DRAM round trip before its data streams; GEMM and ALU
// instructions drain a short pipeline.
constexpr double kDmaOverheadCycles = 40;
constexpr double kPipelineOverheadCycles = 8;
// A SETREQ and the decode of the two instructions of its pair: dispatch, two
// ACC reads and completion (5 cycles on the cycle simulator), 2 per decode.
constexpr double kSetReqCycles = 9;

struct TilePlan {
  int64_t rows = 1, cols = 1, oc_blocks = 1, ic_blocks = 1;
  int threads = 1;  // 2 with latency hiding (double buffering), else 1
  // DWGEMM instead of GEMM (a depthwise layer, LayerBlocks::dwgemm): a tile
  // may then hold several oc blocks, each with its own input plane, and
  // ic_blocks is 1.
  bool dwgemm = false;
  // Keep the requantisation pass after the GEMMs even where they could
  // requantise (requantisesInGemm): on a small image, where most outputs
  // are border outputs, the border's passes cost more than the tile's one.
  bool keep_alu_pass = false;
  // The residual R crosses the port through the load module into INP (in
  // each output tile's first load tile) and a GEMM over an identity weight
  // block adds it to the tile's zeroed accumulators, one cycle a vector of
  // the compute module, instead of the compute module's LOAD ACC8
  // (LayerBlocks::residual_via_input). Additions and max poolings take the
  // same way for their operands and input (add_codegen.cpp,
  // pool_codegen.cpp).
  bool residual_via_input = false;
  // Output tiles run batch group, row tile, column tile, oc tile (innermost).
};

// What the cost model predicts for a plan (cycles of the accelerator clock).
struct CostEstimate {
  double cycles = 0;       // whole layer
  double gemm_cycles = 0;  // cycles the GEMM core consumes a micro-op
  double alu_cycles = 0;
  double load_cycles = 0;  // load module busy
  double store_cycles = 0;
  double dram_bytes = 0;  // read + written
  // Program chains (program_chain.h): the loads of constants before the
  // first GEMM, which the chain overlaps with the layer before, and the
  // store of the last tile, during which the next layer's may run.
  double lead_cycles = 0, tail_cycles = 0;
  bool fits = false;
  std::string why_not;  // when !fits
};

// The outputs a border correction (border_correction.h) adds to.
struct BorderExtent {
  int64_t first_row, rows, first_col, cols;
};

// Derived sizes shared by the cost model and the code generator.
struct LayerBlocks {
  int64_t batch_groups, in_blocks, out_blocks;  // NB, reduction blocks per oc block, OCB
  // Oc blocks interleaved per output entry (outputInterleave): oc tiles are
  // multiples of it, OCB is rounded up to it.
  int64_t out_group;
  int64_t input_planes;  // channel blocks of the input tensor (CB)
  bool grouped;          // oc tiles are one block, or one interleave group (each reads its own inputs)
  int64_t param_kinds;   // per-channel parameter vectors of the ALU sequence
  int64_t border_kinds;  // border correction vectors (border_correction.h)
  std::vector<BorderExtent> border_extents;  // each correction's outputs
  int64_t param_vectors;                     // their ACC entries ((param + border kinds) x OCB)
  int alu_passes;                            // ALU passes per output element (init included)
  // Cycles those passes take per output vector: a pass whose tensor operand
  // changes with every vector (the residual region) reads ACC twice, two
  // cycles on its one read port (one with acc_dual_read); parameter vectors
  // stay in the operand register, one (docs/hardware.md, "ALU with a tensor
  // operand").
  int alu_cycles_per_vector;
  // The same for the passes before the GEMMs (a residual's scaling), which
  // a requantising tile still runs.
  int init_alu_passes, init_alu_cycles_per_vector;
  // The last pass is a bias_clear pass (alu_sequence.h): its operand and bias
  // load into two registers per oc block.
  bool bias_clear;
  // The layer zeroes its tiles' accumulators once (bias_clear, tiles that
  // do not start from the residual loaded into them).
  bool zero_fill;
  bool residual_region;  // R needs its own ACC region beside the tile's
  bool dwgemm;           // the layer has a DWGEMM form on the config (depthwise_gemm.h)
  // The layer's ALU sequence is a lone REQ or FREQ with bias_clear and a
  // parameter operand, and the config has gemm_requant: a tile whose
  // reduction is one GEMM per oc block can requantise in that GEMM
  // (requantisesInGemm). Border corrections then follow the GEMMs, each
  // with the requantising op over its outputs.
  bool gemm_requant_form;
  // R can take TilePlan::residual_via_input: it starts the tile's
  // accumulators (residual_in_acc), the last pass clears them (bias_clear),
  // and an INP entry holds what an output entry does (block_in = block_out,
  // or the G blocks of an interleaved entry: block_in = G * block_out).
  bool residual_via_input;
};
LayerBlocks layerBlocks(const ConvLayer& layer, const hw::HwConfig& cfg);

// Whether a plan's tiles requantise in their GEMMs (extension gemm_requant,
// docs/isa.md): a DWGEMM plan, or a GEMM plan of a dense layer whose whole
// reduction is one chunk, of a layer with the form above. Each tile then
// runs, per oc block, a SETREQ and a GEMM (DWGEMM) with the flag requant,
// and no ALU pass after them; unless the plan keeps its ALU pass.
bool requantisesInGemm(const LayerBlocks& blocks, const TilePlan& plan);

// Cycles a program chain saves between two consecutive layers: the next
// layer's leading constant loads overlap the layer before's last store.
double chainOverlapCycles(const CostEstimate& before, const CostEstimate& after);

// Estimates a plan; `fits` is false (with the reason) when a buffer overflows.
CostEstimate estimatePlan(const ConvLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg);
// The same with the layer's blocks already computed (they cost a pass over the
// weights; the tiling search evaluates hundreds of plans of one layer).
CostEstimate estimatePlan(const ConvLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg,
                          const LayerBlocks& blocks);

// The cheapest plan that fits. Throws DoesNotFit naming the layer when no
// tiling fits (e.g. one output row does not fit the accumulator).
TilePlan chooseTiling(const ConvLayer& layer, const hw::HwConfig& cfg, bool latency_hiding,
                      CostEstimate* estimate = nullptr);

}  // namespace vdla::accel
