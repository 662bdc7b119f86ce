// Depthwise convolutions on DWGEMM (depthwise_gemm.h) against vdla.QConv
// restated naively: random depthwise layers (kernels up to the config's taps
// wide, strides 1 to 3, padding with zero and nonzero values, residuals,
// channel counts that do not fill the last block, batches) with the chosen
// and random tilings (edge tiles, several oc blocks per tile), latency hiding
// on and off, take DWGEMM and no GEMM, on fsim and every other device
// backend; the cost model counts the DWGEMM iterations the program runs.
// Configs without the extension, kernels wider than its taps, strides past
// its field and layers that are not depthwise keep GEMM and stay exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "accel_test_util.h"
#include "vdla/compiler/accel/border_correction.h"
#include "vdla/compiler/accel/depthwise_gemm.h"
#include "vdla/compiler/accel/token_check.h"
#include "vdla/driver/device.h"
#include "vdla/hw/config.h"

namespace vdla::accel {
namespace {

using test::LayerData;

// pynq's hardware without the extension, and with two images per entry.
const char* const kPynqWithoutTaps = R"({
  "name": "pynq_without_dwgemm",
  "target": {"board": "pynq-z1", "part": "xc7z020clg400-1", "clock_mhz": 100},
  "gemm": {"batch": 1, "block_in": 16, "block_out": 16},
  "data_bits": {"input": 8, "weight": 8, "accumulator": 32, "output": 8},
  "buffers_kib": {"uop": 32, "input": 32, "weight": 256, "accumulator": 128, "output": 32},
  "axi": {"data_bits": 64},
  "queues": {"command_depth": 128, "token_depth": 32},
  "isa": {"dram_addr_bits": 32, "xfer_size_bits": 16, "pad_bits": 4, "loop_iter_bits": 14, "alu_imm_bits": 16},
  "extensions": {"fused_requant": true}
})";
const char* const kBatch2WithTaps = R"({
  "name": "batch2_dwgemm",
  "target": {"board": "pynq-z1", "part": "xc7z020clg400-1", "clock_mhz": 100},
  "gemm": {"batch": 2, "block_in": 16, "block_out": 16},
  "data_bits": {"input": 8, "weight": 8, "accumulator": 32, "output": 8},
  "buffers_kib": {"uop": 32, "input": 32, "weight": 256, "accumulator": 128, "output": 32},
  "axi": {"data_bits": 64},
  "queues": {"command_depth": 128, "token_depth": 32},
  "isa": {"dram_addr_bits": 32, "xfer_size_bits": 16, "pad_bits": 4, "loop_iter_bits": 14, "alu_imm_bits": 16},
  "extensions": {"fused_requant": true, "depthwise_taps": 3}
})";

// Arrays whose block_in is a multiple of block_out: a batch of two on
// 1x32x16 (no output interleave) and four lane blocks per input entry.
const char* const kBatch2Lanes = R"({
  "name": "batch2_32x16_dwgemm",
  "target": {"board": "ultra96-v2", "part": "xczu3eg-sbva484-1-i", "clock_mhz": 200},
  "gemm": {"batch": 2, "block_in": 32, "block_out": 16},
  "data_bits": {"input": 8, "weight": 8, "accumulator": 32, "output": 8},
  "buffers_kib": {"uop": 32, "input": 64, "weight": 256, "accumulator": 128, "output": 32},
  "axi": {"data_bits": 128},
  "queues": {"command_depth": 128, "token_depth": 32},
  "isa": {"dram_addr_bits": 32, "xfer_size_bits": 16, "pad_bits": 4, "loop_iter_bits": 14, "alu_imm_bits": 16},
  "extensions": {"fused_requant": true, "depthwise_taps": 5, "alu_bias_clear": true}
})";
const char* const k64x16Lanes = R"({
  "name": "64x16_dwgemm",
  "target": {"board": "ultra96-v2", "part": "xczu3eg-sbva484-1-i", "clock_mhz": 200},
  "gemm": {"batch": 1, "block_in": 64, "block_out": 16},
  "data_bits": {"input": 8, "weight": 8, "accumulator": 32, "output": 8},
  "buffers_kib": {"uop": 32, "input": 64, "weight": 256, "accumulator": 128, "output": 32},
  "axi": {"data_bits": 128},
  "queues": {"command_depth": 128, "token_depth": 32},
  "isa": {"dram_addr_bits": 32, "xfer_size_bits": 16, "pad_bits": 4, "loop_iter_bits": 14, "alu_imm_bits": 16},
  "extensions": {"fused_requant": true, "depthwise_taps": 3, "alu_bias_clear": true}
})";

int64_t countOps(const ConvProgram& p, hw::Opcode op) {
  return std::count_if(p.program.insns.begin(), p.program.insns.end(),
                       [&](const hw::Instruction& i) { return i.opcode == op; });
}

// The iterations of the program's DWGEMMs: cycles the GEMM core consumes.
double dwgemmIterations(const ConvProgram& p) {
  double n = 0;
  for (const hw::Instruction& i : p.program.insns)
    if (i.opcode == hw::Opcode::DwGemm) n += double(i.iter_out) * i.iter_in * (i.uop_end - i.uop_begin);
  return n;
}

std::string describe(const ConvLayer& L) {
  return "n" + std::to_string(L.n) + " c" + std::to_string(L.c) + " " + std::to_string(L.h) + "x" +
         std::to_string(L.w) + " o" + std::to_string(L.o) + " group " + std::to_string(L.group) + " k" +
         std::to_string(L.kh) + "x" + std::to_string(L.kw) + " s" + std::to_string(L.sh) + "," + std::to_string(L.sw) +
         " pads " + std::to_string(L.pad_top) + "," + std::to_string(L.pad_left) + "," + std::to_string(L.pad_bottom) +
         "," + std::to_string(L.pad_right) + " pad value " + std::to_string(L.pad_value) +
         (L.residual ? " residual" : "");
}

// A random tiling of the same kind as the chosen one (rows, columns and oc
// blocks that need not divide the layer: edge tiles), or the chosen one.
TilePlan randomPlanLike(const ConvLayer& L, const hw::HwConfig& cfg, const TilePlan& chosen, std::mt19937& rng) {
  const LayerBlocks b = layerBlocks(L, cfg);
  auto pick = [&](int64_t hi) { return std::uniform_int_distribution<int64_t>(1, hi)(rng); };
  for (int attempt = 0; attempt < 30; ++attempt) {
    TilePlan p = chosen;
    p.rows = pick(L.oh);
    p.cols = pick(L.ow);
    if (p.dwgemm || !b.grouped) p.oc_blocks = pick(b.out_blocks);
    if (estimatePlan(L, p, cfg).fits) return p;
  }
  return chosen;
}

// Generates the plan's program, checks its tokens, runs it on fsim and
// compares every output with the naive definition; returns the program.
ConvProgram runExact(driver::Device& dev, const ConvLayer& L, const TilePlan& plan, const LayerData& d,
                     const std::string& what, sim::ExecutionStats* stats = nullptr) {
  ConvProgram prog = generateConvProgram(L, plan, dev.config(), 0);
  EXPECT_NO_THROW(checkTokens(prog.program.insns, dev.config(), L.name)) << what;
  const rt::Tensor got = test::runOnDevice(dev, L, prog, d, stats);
  const rt::Tensor want = test::naiveQConv(L, d);
  EXPECT_EQ(got.numElements(), want.numElements()) << what;
  for (int64_t i = 0; i < std::min(got.numElements(), want.numElements()); ++i)
    if (got.data<int8_t>()[i] != want.data<int8_t>()[i]) {
      ADD_FAILURE() << what << ": element " << i << " of " << rt::shapeToString(want.shape()) << " is "
                    << int(got.data<int8_t>()[i]) << ", want " << int(want.data<int8_t>()[i]) << " (tile " << plan.rows
                    << "x" << plan.cols << " px x " << plan.oc_blocks << " oc, threads " << plan.threads
                    << (plan.dwgemm ? ", DWGEMM)" : ", GEMM)");
      break;
    }
  return prog;
}

// A DWGEMM plan of the layer that fits (random extents, else one pixel).
TilePlan someDwPlan(const ConvLayer& L, const hw::HwConfig& cfg, bool lh, std::mt19937& rng) {
  TilePlan p;
  p.threads = lh ? 2 : 1;
  p.dwgemm = true;
  return randomPlanLike(L, cfg, p, rng);
}

// Random depthwise layers on a config with DWGEMM: the cost model takes it
// for every one whose rows it runs in fewer iterations than GEMM (a stride
// below the kernel's width: a row of `cols` outputs costs (cols-1)*sw + kw
// iterations per kernel row instead of cols*kw; the others run a DWGEMM plan
// anyway), the program has no GEMM, and the GEMM core's cycles the cost
// model estimates are the iterations fsim counts.
void randomLayersOnDwGemm(const hw::HwConfig& cfg, uint32_t seed, int count, int64_t max_n,
                          const std::string& backend = "fsim") {
  auto dev = driver::createDevice(backend, cfg);
  std::mt19937 rng(seed);
  for (int k = 0; k < count; ++k) {
    ConvLayer L = test::randomDepthwiseLayer(rng, cfg.depthwise_taps, k % 4 == 3 ? 3 : 2);
    L.n = std::uniform_int_distribution<int64_t>(1, max_n)(rng);
    const LayerData d = test::randomData(L, rng);
    for (bool lh : {true, false}) {
      const std::string what = "layer " + std::to_string(k) + " (" + describe(L) + ") on " + backend + "/" + cfg.name +
                               ", latency hiding " + (lh ? "on" : "off");
      const TilePlan chosen = chooseTiling(L, cfg, lh);
      if (L.sw < L.kw && L.ow > 1) {
        ASSERT_TRUE(chosen.dwgemm) << what << ": the cost model keeps GEMM";
      }
      const TilePlan plan = !chosen.dwgemm ? someDwPlan(L, cfg, lh, rng)
                            : k % 2        ? randomPlanLike(L, cfg, chosen, rng)
                                           : chosen;
      ASSERT_TRUE(plan.dwgemm && estimatePlan(L, plan, cfg).fits) << what;
      sim::ExecutionStats stats;
      const ConvProgram prog = runExact(*dev, L, plan, d, what, &stats);
      EXPECT_GT(countOps(prog, hw::Opcode::DwGemm), 0) << what;
      EXPECT_EQ(countOps(prog, hw::Opcode::Gemm), 0) << what;
      EXPECT_EQ(prog.estimate.gemm_cycles, dwgemmIterations(prog)) << what;
      // What the device counts: fsim the iterations, the RTL the cycles
      // its GEMM core consumed a micro-op (the HLS model neither).
      if (backend == "fsim") {
        EXPECT_EQ(double(stats.gemm_uop_iterations), prog.estimate.gemm_cycles) << what;
      }
      if (stats.has_cycle_counters) {
        EXPECT_EQ(double(stats.cycle_counters.gemm_uop_cycles), prog.estimate.gemm_cycles) << what;
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(DepthwiseGemm, RandomLayersRunOnDwGemmBitExact) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  ASSERT_EQ(cfg.depthwise_taps, 5u);
  randomLayersOnDwGemm(cfg, 2031, 70, 2);
}

// The same on every device backend but fsim (the RTL's cycle model and the
// HLS model; fewer layers, the cycle device is ~20x slower).
void randomLayersOnTheOtherDevices(const hw::HwConfig& cfg, uint32_t seed, int count, int64_t max_n) {
  for (const std::string& backend : driver::deviceBackends()) {
    if (backend == "fsim") continue;
    randomLayersOnDwGemm(cfg, seed, count, max_n, backend);
    if (::testing::Test::HasFailure()) return;
  }
}

// pynq's cycle model is built in.
TEST(DepthwiseGemm, RandomLayersBitExactOnEveryDevice) {
  randomLayersOnTheOtherDevices(hw::loadConfig("pynq"), 4099, 10, 2);
}

// Two images per entry: DWGEMM's lanes are [batch][channel].
TEST(DepthwiseGemm, BatchOfTwoPerEntryBitExact) {
  randomLayersOnDwGemm(hw::parseConfig(kBatch2WithTaps, "batch2_dwgemm"), 77, 16, 3);
}

// block_in a multiple of block_out: oc block q takes lane block q % LB of
// input block q / LB (LB = block_in / block_out), a DWGEMM per lane block.
// ultra96 (1x32x16) interleaves its outputs in pairs of blocks; the batch of
// two does not; 1x64x16 has four lane blocks.
TEST(DepthwiseGemm, LaneBlocksBitExact) {
  const hw::HwConfig u96 = hw::loadConfig("ultra96");
  ASSERT_EQ(u96.depthwiseLaneBlocks(), 2u);
  ASSERT_GT(u96.depthwise_taps, 0u);
  randomLayersOnDwGemm(u96, 3301, 40, 2);
  randomLayersOnDwGemm(hw::parseConfig(kBatch2Lanes, "batch2_32x16_dwgemm"), 3302, 16, 3);
  randomLayersOnDwGemm(hw::parseConfig(k64x16Lanes, "64x16_dwgemm"), 3303, 16, 1);
}

// ultra96's cycle model is built on first use.
TEST(DepthwiseGemm, LaneBlocksBitExactOnEveryDevice) {
  randomLayersOnTheOtherDevices(hw::loadConfig("ultra96"), 5101, 8, 1);
}

// gemm_requant: a depthwise layer whose ALU sequence is a lone REQ with
// bias_clear requantises in its DWGEMMs: per tile a SETREQ and a DWGEMM with
// requant per oc block, and no requantising ALU pass but over the border
// outputs of a layer that pads with a nonzero value (after its correction);
// a plan that keeps its ALU pass has no SETREQ.
// Random such layers, chosen and random DWGEMM plans, with and without
// latency hiding, bit-exact on every device backend, on pynq (square) and
// ultra96 (two lane blocks, interleaved outputs).
TEST(DepthwiseGemm, RequantisingDwgemmsBitExactOnEveryDevice) {
  for (const char* name : {"pynq", "ultra96"}) {
    const hw::HwConfig cfg = hw::loadConfig(name);
    ASSERT_TRUE(cfg.gemm_requant && cfg.depthwise_taps) << name;
    std::mt19937 rng(cfg.name == "pynq" ? 8101 : 8102);
    int requantising = 0, with_corrections = 0, kept = 0;
    for (const std::string& backend : driver::deviceBackends()) {
      auto dev = driver::createDevice(backend, cfg);
      for (int k = 0; k < (backend == "fsim" ? 64 : 8); ++k) {
        ConvLayer L = test::randomDepthwiseLayer(rng, cfg.depthwise_taps, 2);
        // The form a lone REQ with bias_clear takes (conv_codegen_test's);
        // half of the layers pad with a nonzero value (border corrections).
        L.shift1 = 0;
        std::fill(L.bias2.begin(), L.bias2.end(), 0);
        for (int64_t o = 0; o < L.o; ++o) {
          L.bias1[static_cast<size_t>(o)] = std::uniform_int_distribution<int32_t>(-5000, 5000)(rng);
          if (!L.wide_product && !L.float_requant)
            L.mult[static_cast<size_t>(o)] = std::uniform_int_distribution<int32_t>(-3000, 70000)(rng);
        }
        if (!layerBlocks(L, cfg).gemm_requant_form) continue;
        const LayerData d = test::randomData(L, rng);
        for (bool lh : {true, false}) {
          const std::string what = "layer " + std::to_string(k) + " (" + describe(L) + ") on " + backend + "/" +
                                   cfg.name + ", latency hiding " + (lh ? "on" : "off");
          const TilePlan chosen = chooseTiling(L, cfg, lh);
          TilePlan plan = !chosen.dwgemm ? someDwPlan(L, cfg, lh, rng)
                          : k % 2        ? randomPlanLike(L, cfg, chosen, rng)
                                         : chosen;
          // A third of the plans keep the ALU pass (as the cost model may).
          const bool keep = k % 3 == 0;
          plan.keep_alu_pass = keep;
          ASSERT_TRUE(plan.dwgemm && estimatePlan(L, plan, cfg).fits) << what;
          const ConvProgram prog = runExact(*dev, L, plan, d, what);
          int requant_dwgemms = 0, requantising_alus = 0;
          for (const hw::Instruction& i : prog.program.insns) {
            requant_dwgemms += i.opcode == hw::Opcode::DwGemm && i.requant;
            requantising_alus +=
                i.opcode == hw::Opcode::Alu && (i.alu_op == hw::AluOp::Req || i.alu_op == hw::AluOp::FReq);
          }
          EXPECT_EQ(countOps(prog, hw::Opcode::SetReq), requant_dwgemms) << what;
          if (keep) {
            EXPECT_EQ(requant_dwgemms, 0) << what;
            EXPECT_GT(requantising_alus, 0) << what;
            ++kept;
            if (::testing::Test::HasFailure()) return;
            continue;
          }
          EXPECT_GT(requant_dwgemms, 0) << what;
          EXPECT_EQ(requant_dwgemms, countOps(prog, hw::Opcode::DwGemm)) << what;
          // Only the border outputs a correction reaches requantise in the ALU.
          if (borderCorrections(L).empty()) {
            EXPECT_EQ(requantising_alus, 0) << what;
          } else {
            EXPECT_GT(requantising_alus, 0) << what;
            ++with_corrections;
          }
          ++requantising;
          if (::testing::Test::HasFailure()) return;
        }
      }
    }
    EXPECT_GT(requantising, 20) << name;
    EXPECT_GT(with_corrections, 4) << name;
    EXPECT_GT(kept, 6) << name;
  }
}

// A DWGEMM per lane block: a 70-channel layer on ultra96 has six oc blocks
// (rounded up to the interleave) over three input blocks; in tiles of one
// output row and all six blocks, each tile runs lane block 0 (blocks 0, 2,
// 4), then lane block 1 (1, 3, 5).
TEST(DepthwiseGemm, AnInstructionPerLaneBlock) {
  const hw::HwConfig cfg = hw::loadConfig("ultra96");
  std::mt19937 rng(12);
  ConvLayer L = test::randomDepthwiseLayer(rng, 3);
  L.c = L.o = L.group = 70;
  L.kw = 3;
  L.sw = 1;
  L.pad_left = L.pad_right = 1;
  L.w = std::max<int64_t>(L.w, 3);
  L.ow = (L.w + 2 - 3) + 1;
  for (auto* v : {&L.bias1, &L.mult, &L.bias2, &L.residual_mult})
    if (!v->empty()) v->resize(70, v->front());
  L.weights.resize(static_cast<size_t>(70 * L.kh * 3), 5);
  TilePlan plan = chooseTiling(L, cfg, false);
  ASSERT_TRUE(plan.dwgemm);
  plan.oc_blocks = 6;
  plan.rows = 1;
  plan.cols = L.ow;
  ASSERT_TRUE(estimatePlan(L, plan, cfg).fits) << estimatePlan(L, plan, cfg).why_not;
  const ConvProgram prog = generateConvProgram(L, plan, cfg, 0);
  std::vector<uint32_t> lanes;
  for (const hw::Instruction& i : prog.program.insns)
    if (i.opcode == hw::Opcode::DwGemm && lanes.size() < 2) lanes.push_back(i.lane_block);
  EXPECT_EQ(lanes, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(countOps(prog, hw::Opcode::DwGemm), 2 * L.oh);
  // An odd tile splits an input block between tiles: refused.
  plan.oc_blocks = 3;
  EXPECT_NE(estimatePlan(L, plan, cfg).why_not, "");
}

// Random depthwise layers on a config with GEMM only, and the GEMM plans of
// layers without a DWGEMM form: bit-exact, GEMM and no DWGEMM.
void expectGemm(driver::Device& dev, const ConvLayer& L, const LayerData& d, const std::string& what) {
  for (bool lh : {true, false}) {
    const TilePlan plan = chooseTiling(L, dev.config(), lh);
    EXPECT_FALSE(plan.dwgemm) << what;
    const ConvProgram prog = runExact(dev, L, plan, d, what + (lh ? ", latency hiding" : ""));
    EXPECT_GT(countOps(prog, hw::Opcode::Gemm), 0) << what;
    EXPECT_EQ(countOps(prog, hw::Opcode::DwGemm), 0) << what;
  }
}

TEST(DepthwiseGemm, ConfigsWithoutTheExtensionKeepGemm) {
  for (const hw::HwConfig& cfg : {hw::parseConfig(kPynqWithoutTaps, "pynq_without_dwgemm"), hw::loadConfig("tiny")}) {
    ASSERT_EQ(cfg.depthwise_taps, 0u) << cfg.name;
    auto dev = driver::createDevice("fsim", cfg);
    std::mt19937 rng(5);
    for (int k = 0; k < 12; ++k) {
      const ConvLayer L = test::randomDepthwiseLayer(rng, 3);
      EXPECT_NE(whyNoDepthwiseGemm(L, cfg), "");
      // A DWGEMM plan is refused by the cost model, naming why.
      TilePlan dw = chooseTiling(L, cfg, true);
      dw.dwgemm = true;
      dw.ic_blocks = 1;
      const CostEstimate e = estimatePlan(L, dw, cfg);
      EXPECT_FALSE(e.fits);
      EXPECT_NE(e.why_not.find("no DWGEMM form"), std::string::npos) << e.why_not;
      expectGemm(*dev, L, test::randomData(L, rng), describe(L) + " on " + cfg.name);
      if (HasFailure()) return;
    }
  }
}

// On pynq (5 taps): a kernel 7 wide, a horizontal stride of 4, two output
// channels per input channel and groups of two channels have no DWGEMM form.
TEST(DepthwiseGemm, LayersWithoutTheFormKeepGemm) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  auto dev = driver::createDevice("fsim", cfg);
  std::mt19937 rng(8);
  for (int kind = 0; kind < 4; ++kind)
    for (int k = 0; k < 3; ++k) {
      ConvLayer L = test::randomDepthwiseLayer(rng, 3);
      if (kind == 0) {
        L.kw = cfg.depthwise_taps + 2;  // wider than the window
      } else if (kind == 1) {
        L.sw = 4;  // past the stride field
      } else if (kind == 2) {
        L.o = 2 * L.c;  // a channel multiplier of 2
      } else {
        L.c = 2 * L.c;  // two input channels per group
        L.o = L.c;
      }
      L.pad_left = std::min(L.pad_left, L.kw - 1);
      L.pad_right = std::min(L.pad_right, L.kw - 1);
      L.w = std::max(L.w, L.kw);
      L.h = std::max(L.h, L.kh);
      L.oh = (L.h + L.pad_top + L.pad_bottom - L.kh) / L.sh + 1;
      L.ow = (L.w + L.pad_left + L.pad_right - L.kw) / L.sw + 1;
      for (auto* v : {&L.bias1, &L.mult, &L.bias2, &L.residual_mult})
        if (!v->empty()) v->resize(static_cast<size_t>(L.o), v->front());
      L.weights.resize(static_cast<size_t>(L.o * (L.c / L.group) * L.kh * L.kw), 3);
      EXPECT_NE(whyNoDepthwiseGemm(L, cfg), "") << describe(L);
      expectGemm(*dev, L, test::randomData(L, rng), describe(L));
      if (HasFailure()) return;
    }
}

// An entry per (oc block, kernel row): row t holds kernel column kw-1-t of
// each channel; the rows past the kernel and the channels past the layer's
// are zero.
TEST(DepthwiseGemm, PacksAKernelRowPerEntry) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  ConvLayer L;
  L.c = L.o = L.group = 18;
  L.kh = 2;
  L.kw = 3;
  L.weights.resize(static_cast<size_t>(L.o * L.kh * L.kw));
  for (size_t i = 0; i < L.weights.size(); ++i) L.weights[i] = static_cast<int8_t>(i % 113 + 1);
  const std::vector<uint8_t> w = packDepthwiseWeights(L, cfg);
  const int64_t entry = 16 * 16;
  ASSERT_EQ(w.size(), size_t(2 * L.kh * entry));
  for (int64_t ocb = 0; ocb < 2; ++ocb)
    for (int64_t ky = 0; ky < L.kh; ++ky)
      for (int64_t t = 0; t < 16; ++t)
        for (int64_t c = 0; c < 16; ++c) {
          const int64_t o = ocb * 16 + c;
          const int8_t want =
              t < L.kw && o < L.o ? L.weights[static_cast<size_t>((o * L.kh + ky) * L.kw + L.kw - 1 - t)] : 0;
          ASSERT_EQ(int8_t(w[static_cast<size_t>((ocb * L.kh + ky) * entry + t * 16 + c)]), want)
              << "oc block " << ocb << " row " << ky << " tap " << t << " channel " << c;
        }
}

// MobileNetV2's depthwise shapes: DWGEMM is cheaper than the best GEMM plan
// (pynq's buffers without the extension), and its GEMM-core cycles are a
// kernel row per input pixel of each output row.
TEST(DepthwiseGemm, CostModelPrefersDwGemmOnMobileNetShapes) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  const hw::HwConfig gemm_only = hw::parseConfig(kPynqWithoutTaps, "pynq_without_dwgemm");
  struct Shape {
    int64_t c, h, s;
  };
  for (const Shape& s : {Shape{32, 112, 1}, Shape{96, 112, 2}, Shape{144, 56, 1}, Shape{144, 56, 2}, Shape{192, 28, 1},
                         Shape{576, 14, 2}, Shape{960, 7, 1}})
    for (bool lh : {true, false}) {
      ConvLayer L;
      L.name = "dw";
      L.c = L.o = L.group = s.c;
      L.h = L.w = s.h;
      L.kh = L.kw = 3;
      L.sh = L.sw = s.s;
      L.pad_top = L.pad_left = L.pad_bottom = L.pad_right = 1;
      L.pad_value = -128;
      L.oh = L.ow = (s.h - 1) / s.s + 1;
      L.bias1.assign(static_cast<size_t>(L.o), 5);
      L.mult.assign(static_cast<size_t>(L.o), 3);
      L.bias2.assign(static_cast<size_t>(L.o), 0);
      L.weights.assign(static_cast<size_t>(L.o * 9), 1);
      const std::string what = "c" + std::to_string(s.c) + " " + std::to_string(s.h) + "x" + std::to_string(s.h) +
                               " s" + std::to_string(s.s) + (lh ? " with" : " without") + " latency hiding";
      CostEstimate dw, gemm;
      const TilePlan p = chooseTiling(L, cfg, lh, &dw);
      const TilePlan g = chooseTiling(L, gemm_only, lh, &gemm);
      EXPECT_TRUE(p.dwgemm) << what;
      EXPECT_FALSE(g.dwgemm) << what;
      EXPECT_LT(dw.cycles, gemm.cycles) << what;
      EXPECT_LT(dw.gemm_cycles, gemm.gemm_cycles / 1.3) << what;
      // The iterations: per oc block, kernel row and output row, the input
      // row of each column tile (its outputs' inputs and the window's kw-1).
      double iterations = 0;
      for (int64_t c0 = 0; c0 < L.ow; c0 += p.cols) {
        const int64_t cols = std::min(p.cols, L.ow - c0);
        iterations += double((s.c + 15) / 16 * L.kh * L.oh * ((cols - 1) * L.sw + L.kw));
      }
      EXPECT_EQ(dw.gemm_cycles, iterations) << what;
      EXPECT_GE(dw.cycles, dw.gemm_cycles) << what;
    }
}

}  // namespace
}  // namespace vdla::accel
