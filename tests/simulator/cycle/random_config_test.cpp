// Property test: for random *valid* hardware configs, the RTL (a cycle model
// built on demand, simulator/cycle/src/model_cache.cpp) and fsim leave DRAM
// bit for bit identical on random programs (progen).
//
// Every config field is drawn across the range parseConfig accepts
// (vdla_hw/src/config.cpp): batch, block_in and block_out independently (so
// batch > 1 and block_in != block_out are common), buffers from 1 to 64 KiB
// each, AXI from 32 to 512 bits (narrower and wider than the memories'
// entries), queue depths from 1 up, and every ISA width (dram_addr_bits,
// xfer_size_bits, pad_bits, loop_iter_bits, alu_imm_bits) anywhere in its
// range, and the datapath extensions (fused_requant, float_requant,
// depthwise_taps with any legal window, alu_bias_clear, acc_dual_read, inp_writeback; buffers in
// UltraRAM; the GEMM blocks are made equal in
// some draws, and DWGEMM takes square arrays and those whose block_in is a
// multiple of block_out). Draws the validator refuses are skipped and counted by reason, so
// the test also shows which corners the validator closes. Two limits are the
// test's own, to keep each model quick to build and to run: buffers of at
// most 64 KiB and at most 1024 MACs per cycle (batch x block_in x block_out).
//
// CTest runs the configs of kCiSeeds (each model is built once into a cache
// owned by this test and reused while the RTL and harness are unchanged).
// The long property run draws more (see docs/hardware.md):
//   VDLA_RANDOM_CONFIGS=N         N configs, seeds FIRST .. FIRST+N-1
//   VDLA_RANDOM_CONFIG_FIRST=S    FIRST (default 1)
//   VDLA_RANDOM_CONFIG_PROGRAMS=M random programs per config (default 24)
//   VDLA_RANDOM_CONFIG_EXTENSION=E only configs with extension E (the first N from FIRST)
// A failure prints the config's JSON, its draw seed and the program's seed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <cstring>

#include "differential.h"
#include "model_cache.h"
#include "vdla/hw/config.h"
#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"
#include "vdla/sim/cycle_sim.h"
#include "vdla/sim/dram.h"
#include "vdla/sim/fsim.h"

namespace vdla::cycletest {
namespace {

using sim::progen::generateProgram;
using sim::progen::ProgenOptions;

// Draws for CTest, chosen among the first ones: seed 1 is batch 8, 4 in, 32
// out, AXI 32 bits (narrower than every entry), the narrowest transfer field
// (4 bits), pad_bits 1, loop_iter_bits 2, a 3-bit immediate and 21 address
// bits; seed 2 is batch 4, 2 in, 128 out, AXI 128 bits (wider than an input
// entry), pad_bits 8 and 25 address bits.
constexpr uint64_t kCiSeeds[] = {1, 2, 11};  // 11: batch 4, 4x4 blocks, DWGEMM with 2 taps
constexpr int kDefaultPrograms = 24;

// splitmix64, written out so that a seed names the same config with every
// standard library (std distributions are not specified bit for bit).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x2545f4914f6cdd1dull + 0x9e3779b97f4a7c15ull) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  uint64_t range(uint64_t lo, uint64_t hi) { return lo + next() % (hi - lo + 1); }
  bool chance(uint64_t percent) { return next() % 100 < percent; }

 private:
  uint64_t state_;
};

// A depth in [1, max], log-uniform so that shallow queues (1, 2, 3) are as
// likely as deep ones; not only powers of two.
uint64_t drawDepth(Rng& rng, uint64_t max) {
  uint32_t top = 0;
  while ((uint64_t(1) << (top + 1)) <= max) ++top;
  const uint32_t e = uint32_t(rng.range(0, top));
  const uint64_t lo = (uint64_t(1) << e) / 2 + 1, hi = e == top ? max : uint64_t(1) << e;
  return rng.range(lo, hi);
}

// One draw: every field independent within its legal range (except that the
// output buffer usually follows the accumulator, which the validator
// requires; otherwise almost every draw would be refused for that alone).
std::string drawConfigJson(Rng& rng, const std::string& name) {
  uint32_t eb = uint32_t(rng.range(0, 4)), ei = uint32_t(rng.range(0, 7)), eo = uint32_t(rng.range(0, 7));
  while (eb + ei + eo > 10) {  // at most 1024 MACs per cycle (this test's limit)
    uint32_t* e[] = {&eb, &ei, &eo};
    uint32_t* pick = e[rng.range(0, 2)];
    if (*pick > 0) --*pick;
  }
  if (rng.chance(30)) ei = eo = std::min(ei, eo);             // square blocks
  auto kib = [&] { return uint64_t(1) << rng.range(0, 6); };  // 1 .. 64 KiB
  const uint64_t acc_kib = kib();
  const uint64_t out_kib = (rng.chance(80) && acc_kib >= 4) ? acc_kib / 4 : kib();
  const uint64_t axi_bits = uint64_t(32) << rng.range(0, 4);
  const uint64_t imm_bits = rng.range(2, 32);
  // Extensions: REQ needs 16 immediate bits and FREQ needs REQ; DWGEMM
  // block_in >= block_out and at most one tap per multiplier pair
  // (ceil(block_out / 2)).
  const bool fused = imm_bits >= 16 && rng.chance(50), freq = fused && rng.chance(30);
  const uint64_t max_taps = std::min<uint64_t>(15, ((uint64_t(1) << eo) + 1) / 2);
  uint64_t taps = (ei == eo && rng.chance(60)) ? rng.range(1, max_taps) : 0;
  // block_in a multiple of block_out (DWGEMM's lane_block): the window from
  // the fields already drawn, in about half of those draws, without drawing
  // again (a draw the validator now refuses still moves later seeds on).
  if (ei > eo && (eb * 3 + ei + eo * 5 + imm_bits) % 2) taps = 1 + (imm_bits + acc_kib) % max_taps;
  std::string extensions;
  auto add = [&](const std::string& kv) { extensions += (extensions.empty() ? "" : ", ") + kv; };
  if (fused) add("\"fused_requant\": true");
  if (freq) add("\"float_requant\": true");
  if (taps) add("\"depthwise_taps\": " + std::to_string(taps));
  // alu_bias_clear from the fields already drawn (about half the draws), so
  // that the random stream, and with it every other field of the CI seeds'
  // configs, stays as it was before the extension existed.
  if ((eb * 7 + ei * 5 + eo * 3 + imm_bits + acc_kib) % 2) add("\"alu_bias_clear\": true");
  // acc_dual_read the same way, in about a third of the draws.
  if ((eb * 5 + ei * 7 + eo + imm_bits * 3 + acc_kib) % 3 == 0) add("\"acc_dual_read\": true");
  // inp_writeback (STORE INP) likewise, on about half the square arrays
  // (INP and OUT entries of one width).
  if (ei == eo && (eb * 3 + ei + imm_bits * 5 + acc_kib + axi_bits / 32) % 2 == 0) add("\"inp_writeback\": true");
  // Buffers in UltraRAM (a synthesis attribute: the RTL's other branch of
  // vdla_ram, the same behaviour) likewise, in about a third of the draws.
  std::string ultraram;
  if ((eb * 3 + ei * 5 + eo * 7 + imm_bits * 2 + acc_kib) % 3 == 1)
    ultraram = (imm_bits + axi_bits / 32) % 2 ? "[\"input\", \"accumulator\"]"
                                              : "[\"uop\", \"weight\", \"accumulator\", \"output\"]";
  const std::string j =
      "{\n"
      "  \"name\": \"" +
      name +
      "\",\n"
      "  \"description\": \"random config (random_config_test)\",\n"
      "  \"target\": {\"board\": \"pynq-z1\", \"part\": \"xc7z020clg400-1\", \"clock_mhz\": 100},\n"
      "  \"gemm\": {\"batch\": " +
      std::to_string(1u << eb) + ", \"block_in\": " + std::to_string(1u << ei) +
      ", \"block_out\": " + std::to_string(1u << eo) +
      "},\n"
      "  \"data_bits\": {\"input\": 8, \"weight\": 8, \"accumulator\": 32, \"output\": 8},\n"
      "  \"buffers_kib\": {\"uop\": " +
      std::to_string(kib()) + ", \"input\": " + std::to_string(kib()) + ", \"weight\": " + std::to_string(kib()) +
      ", \"accumulator\": " + std::to_string(acc_kib) + ", \"output\": " + std::to_string(out_kib) +
      "},\n"
      "  \"axi\": {\"data_bits\": " +
      std::to_string(axi_bits) +
      "},\n"
      "  \"queues\": {\"command_depth\": " +
      std::to_string(drawDepth(rng, 4096)) + ", \"token_depth\": " + std::to_string(drawDepth(rng, 255)) +
      "},\n"
      "  \"isa\": {\"dram_addr_bits\": " +
      std::to_string(rng.range(16, 32)) + ", \"xfer_size_bits\": " + std::to_string(rng.range(4, 16)) +
      ", \"pad_bits\": " + std::to_string(rng.range(1, 8)) +
      ", \"loop_iter_bits\": " + std::to_string(rng.range(1, 16)) + ", \"alu_imm_bits\": " + std::to_string(imm_bits) +
      "}" + (extensions.empty() ? "" : ",\n  \"extensions\": {" + extensions + "}") +
      (ultraram.empty() ? "" : ",\n  \"ultraram\": " + ultraram) + "\n}";
  return j;
}

struct ConfigDraw {
  uint64_t seed = 0;
  std::string json;
  hw::HwConfig cfg;
  int refused = 0;                            // draws the validator refused before this one
  std::map<std::string, int> refused_fields;  // ... by the field it named
};

// The field a refusal names ("field 'buffers_kib.output': ..." or
// "buffers_kib/isa: ..."), for the tally.
std::string refusedField(const std::string& message) {
  const auto f = message.find("field '");
  if (f != std::string::npos) return message.substr(f + 7, message.find('\'', f + 7) - f - 7);
  const auto c = message.find(": ");
  const auto d = message.find(": ", c + 2);
  return (c == std::string::npos || d == std::string::npos) ? message : message.substr(c + 2, d - c - 2);
}

// The first draw from `seed` that the validator accepts.
ConfigDraw drawValidConfig(uint64_t seed) {
  ConfigDraw d;
  d.seed = seed;
  Rng rng(seed);
  const std::string name = "random_" + std::to_string(seed);
  for (;;) {
    d.json = drawConfigJson(rng, name);
    try {
      d.cfg = hw::parseConfig(d.json, name);
      return d;
    } catch (const Error& e) {
      ++d.refused;
      ++d.refused_fields[refusedField(e.what())];
      if (d.refused > 10000)
        throw Error("random_config_test: no valid config in 10000 draws of seed " + std::to_string(seed) +
                    "; last refusal: " + e.what());
    }
  }
}

uint64_t envNumber(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::strtoull(v, nullptr, 10) : fallback;
}

std::vector<uint64_t> configSeeds() {
  const uint64_t n = envNumber("VDLA_RANDOM_CONFIGS", 0);
  if (n == 0) return {std::begin(kCiSeeds), std::end(kCiSeeds)};
  const uint64_t first = envNumber("VDLA_RANDOM_CONFIG_FIRST", 1);
  // VDLA_RANDOM_CONFIG_EXTENSION=NAME: the first N seeds from FIRST whose
  // config enables that extension (a long run aimed at a new datapath).
  const char* extension = std::getenv("VDLA_RANDOM_CONFIG_EXTENSION");
  std::vector<uint64_t> seeds;
  for (uint64_t s = first; seeds.size() < n && s < first + 1000 * n; ++s)
    if (!extension || !*extension ||
        drawValidConfig(s).json.find("\"" + std::string(extension) + "\"") != std::string::npos)
      seeds.push_back(s);
  return seeds;
}

// The drawer itself, without building anything: reproducible, and over many
// draws every field reaches both ends of its legal range among the
// *accepted* configs (a drawer stuck in a corner would make the RTL runs
// prove little), while the validator refuses some draws.
TEST(RandomConfigDraw, CoversEveryFieldsRangeReproducibly) {
  EXPECT_EQ(drawValidConfig(42).json, drawValidConfig(42).json);
  EXPECT_NE(drawValidConfig(42).json, drawValidConfig(43).json);
  std::map<std::string, std::pair<uint64_t, uint64_t>> seen;  // field -> (min, max)
  auto note = [&](const std::string& field, uint64_t v) {
    auto [it, fresh] = seen.try_emplace(field, v, v);
    if (!fresh) it->second = {std::min(it->second.first, v), std::max(it->second.second, v)};
  };
  int refused = 0;
  bool batch_and_unequal_blocks = false, narrow_axi = false, wide_axi = false;
  int ultraram = 0;
  int fused = 0, freq = 0, depthwise = 0, depthwise_batch = 0, depthwise_lanes = 0, bias_clear = 0, dual_read = 0,
      writeback = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    const ConfigDraw d = drawValidConfig(seed);
    const hw::HwConfig& c = d.cfg;
    refused += d.refused;
    note("batch", c.batch);
    note("block_in", c.block_in);
    note("block_out", c.block_out);
    note("axi", c.axi_data_bits);
    note("command_depth", c.command_queue_depth);
    note("token_depth", c.token_queue_depth);
    note("dram_addr_bits", c.dram_addr_bits);
    note("xfer_size_bits", c.xfer_size_bits);
    note("pad_bits", c.pad_bits);
    note("loop_iter_bits", c.loop_iter_bits);
    note("alu_imm_bits", c.alu_imm_bits);
    note("uop_kib", c.uop_bytes / 1024);
    note("acc_kib", c.acc_bytes / 1024);
    batch_and_unequal_blocks |= c.batch > 1 && c.block_in != c.block_out;
    fused += c.fused_requant;
    freq += c.float_requant;
    bias_clear += c.alu_bias_clear;
    dual_read += c.acc_dual_read;
    writeback += c.inp_writeback;
    ultraram += c.ultraram != 0;
    depthwise += c.depthwise_taps > 0;
    depthwise_batch += c.depthwise_taps > 0 && c.batch > 1;
    depthwise_lanes += c.depthwise_taps > 0 && c.block_in > c.block_out;
    if (c.depthwise_taps) note("depthwise_taps", c.depthwise_taps);
    const uint32_t inp_entry_bits = c.entryBytes(hw::Memory::Input) * 8;
    narrow_axi |= c.axi_data_bits < inp_entry_bits;
    wide_axi |= c.axi_data_bits > inp_entry_bits;
  }
  const std::map<std::string, std::pair<uint64_t, uint64_t>> expected = {
      {"batch", {1, 16}},           {"block_in", {1, 128}},       {"block_out", {1, 128}},
      {"axi", {32, 128}},           {"command_depth", {1, 2048}}, {"token_depth", {1, 200}},
      {"dram_addr_bits", {16, 32}}, {"xfer_size_bits", {4, 16}},  {"pad_bits", {1, 8}},
      {"loop_iter_bits", {1, 16}},  {"alu_imm_bits", {2, 32}},    {"uop_kib", {1, 64}},
      {"acc_kib", {4, 64}},         {"depthwise_taps", {1, 8}},
  };
  // Depths are log-uniform: reaching the top octave is enough (2048+ of 4096,
  // 200+ of 255).
  for (const auto& [field, range] : expected) {
    EXPECT_LE(seen[field].first, range.first) << field;
    EXPECT_GE(seen[field].second, range.second) << field;
  }
  EXPECT_TRUE(batch_and_unequal_blocks);
  EXPECT_GT(fused, 20);
  EXPECT_GT(freq, 5);
  EXPECT_GT(depthwise, 20);
  EXPECT_GT(depthwise_batch, 5);
  EXPECT_GT(depthwise_lanes, 5);
  EXPECT_GT(bias_clear, 20);
  EXPECT_GT(dual_read, 20);
  EXPECT_GT(writeback, 10);
  EXPECT_GT(ultraram, 20);
  EXPECT_TRUE(narrow_axi);
  EXPECT_TRUE(wide_axi);
  EXPECT_GT(refused, 0) << "the validator refused no draw: the drawer stays inside a safe corner";
}

// Where the simulated DRAM starts for these runs. The devices' DRAM starts at
// 0x10000000 (sim::Dram's default), and dram_base counts entries in
// dram_addr_bits bits, so there a config with fewer than 27-29 address bits
// (by entry size) could reach no buffer at all. Starting low, at the first
// page (0 stays unmapped), lets every legal dram_addr_bits address the
// program's buffers, so the field's encoding and decoding are exercised
// across its whole range.
constexpr uint64_t kDramBase = 0x1000;

// Runs `program` on `sim` (fsim or the cycle simulator) with its buffers in
// `dram`: the same allocation sequence on two fresh Drams gives both
// simulators the same addresses. Returns the final buffers, or the error.
template <typename Simulator>
progentest::DeviceRun runOn(Simulator& sim, sim::Dram& dram, const sim::progen::RandomProgram& program) {
  const hw::HwConfig& cfg = sim.config();
  progentest::DeviceRun run;
  std::vector<uint64_t> addrs;
  for (const auto& b : program.buffers) {
    addrs.push_back(dram.allocate(b.init.size()));
    std::memcpy(dram.map(addrs.back(), b.init.size()), b.init.data(), b.init.size());
  }
  try {
    const std::vector<uint8_t> stream =
        hw::encodeInstructionStream(hw::IsaLayout(cfg), sim::progen::relocate(cfg, program, addrs));
    const uint64_t insn_addr = dram.allocate(stream.size());
    std::memcpy(dram.map(insn_addr, stream.size()), stream.data(), stream.size());
    addrs.push_back(insn_addr);
    sim.run(insn_addr, uint32_t(program.instructions.size()));
    for (size_t b = 0; b < program.buffers.size(); ++b) {
      const uint8_t* p = dram.map(addrs[b], program.buffers[b].init.size());
      run.buffers.emplace_back(p, p + program.buffers[b].init.size());
    }
    run.result.status = driver::RunResult::Status::Ok;
  } catch (const Error& e) {
    run.result.status = driver::RunResult::Status::Error;
    run.result.message = e.what();
  }
  for (uint64_t a : addrs) dram.release(a);
  return run;
}

// Without building models: random programs for many draws encode (every
// field within the config's widths) and run on fsim with DRAM at kDramBase.
// This checks the generator against the odd widths quickly, so that a
// failure of the RTL runs below is about the RTL.
TEST(RandomConfigDraw, ProgramsFitEveryDrawAndRunOnFsim) {
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const ConfigDraw d = drawValidConfig(seed);
    sim::Dram dram(kDramBase);
    sim::FunctionalSimulator fsim(d.cfg, dram);
    for (int k = 0; k < 4; ++k) {
      ProgenOptions opts;
      opts.size_scale = (k % 2) ? 2.0 : 1.0;
      const auto program = generateProgram(d.cfg, d.seed * 1000 + uint64_t(k), opts);
      const progentest::DeviceRun run = runOn(fsim, dram, program);
      ASSERT_TRUE(run.result.ok()) << run.result.message << "\nprogram seed " << program.seed << " on the config (seed "
                                   << d.seed << "):\n"
                                   << d.json;
    }
  }
}

class RandomConfig : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    ::setenv("VDLA_CACHE_DIR", VDLA_TEST_MODEL_CACHE, 1);
    ::unsetenv("VDLA_CYCLE_MODEL_BUILD");
  }
};

TEST_P(RandomConfig, RtlMatchesFsimOnRandomPrograms) {
  const ConfigDraw d = drawValidConfig(GetParam());
  std::string tally;
  for (const auto& [field, n] : d.refused_fields) tally += " " + field + " x" + std::to_string(n);
  std::cout << "config seed " << d.seed << " (" << d.refused
            << " draws refused by the validator first:" << (tally.empty() ? " none" : tally) << "), hash "
            << d.cfg.hashHex() << ":\n"
            << d.json << "\n";
  const std::string reproduce = "config (seed " + std::to_string(d.seed) + "):\n" + d.json + "\n";

  sim::CycleModelInfo info;
  try {
    info = sim::prepareCycleModel(d.cfg);
  } catch (const Error& e) {
    FAIL() << "the RTL does not build for a config the validator accepts: " << e.what() << "\n" << reproduce;
  }
  ASSERT_NE(info.source, sim::CycleModelSource::BuiltIn);

  // The simulators directly rather than the fsim and cycle devices (which
  // wrap them; tests/simulator/cycle/on_demand_model_test.cpp runs those), to
  // place DRAM where every dram_addr_bits reaches it (kDramBase).
  sim::Dram fsim_dram(kDramBase), cycle_dram(kDramBase);
  sim::FunctionalSimulator fsim(d.cfg, fsim_dram);
  sim::CycleSimulator cycle(d.cfg, cycle_dram);
  const int programs = int(envNumber("VDLA_RANDOM_CONFIG_PROGRAMS", kDefaultPrograms));
  for (int k = 0; k < programs; ++k) {
    // Every other program at twice the default sizes: longer transfers, loop
    // extents and micro-op ranges, closer to the narrow fields' limits.
    ProgenOptions opts;
    opts.size_scale = (k % 2) ? 2.0 : 1.0;
    const uint64_t program_seed = d.seed * 1000 + uint64_t(k);
    const auto program = generateProgram(d.cfg, program_seed, opts);
    const progentest::DeviceRun a = runOn(fsim, fsim_dram, program), b = runOn(cycle, cycle_dram, program);
    std::string diff;
    if (!a.result.ok() || !b.result.ok())
      diff = "fsim: " + (a.result.ok() ? std::string("ok") : a.result.message) +
             "\ncycle: " + (b.result.ok() ? std::string("ok") : b.result.message) + "\n" +
             sim::progen::describeProgram(program);
    else
      diff = progentest::compareBuffers(d.cfg, program, "fsim", a.buffers, "cycle", b.buffers);
    ASSERT_EQ(diff, "") << "program seed " << program_seed << " with size_scale " << opts.size_scale << " on the "
                        << reproduce;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomConfig, ::testing::ValuesIn(configSeeds()),
                         [](const ::testing::TestParamInfo<uint64_t>& p) { return "seed_" + std::to_string(p.param); });

}  // namespace
}  // namespace vdla::cycletest
