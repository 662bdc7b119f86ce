// Every Device backend against fsim on random programs (fsim against a second
// fsim while it is the only backend, which checks the harness itself), and a
// deliberately corrupted device that the harness must catch with a report
// that names the seed and the place.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "differential.h"
#include "requant_config.h"
#include "vdla/driver/device.h"
#include "vdla/hw/config.h"

namespace vdla::progentest {
namespace {

using sim::progen::generateProgram;
using sim::progen::RandomProgram;
using ::testing::HasSubstr;

std::vector<std::string> backendsToCompare() {
  std::vector<std::string> names;
  for (const auto& n : driver::deviceBackends())
    if (n != "fsim") names.push_back(n);
  if (names.empty()) names.push_back("fsim");
  return names;
}

class Differential : public ::testing::TestWithParam<std::string> {
 protected:
  // One pair of devices for all programs: on-chip state carries over, which a
  // valid program must not depend on.
  void compare(const hw::HwConfig& cfg, uint64_t first_seed, int count) {
    auto golden = driver::createDevice("fsim", cfg);
    auto other = driver::createDevice(GetParam(), cfg);
    for (int k = 0; k < count; ++k) {
      const RandomProgram p = generateProgram(cfg, first_seed + uint64_t(k));
      const std::string report = runDifferential(*golden, *other, p);
      ASSERT_EQ(report, "");
    }
  }
  void compare(const std::string& config, uint64_t first_seed, int count) {
    compare(hw::loadConfig(config), first_seed, count);
  }
  // Programs whose requantising GEMMs may use the state after reset, each on
  // a fresh pair of devices; only those that do are run.
  void compareFromReset(const hw::HwConfig& cfg, uint64_t first_seed, int count) {
    sim::progen::ProgenOptions o;
    o.requant_from_reset = true;
    int ran = 0;
    for (uint64_t seed = first_seed; ran < count && seed < first_seed + 20 * uint64_t(count); ++seed) {
      const RandomProgram p = generateProgram(cfg, seed, o);
      if (!p.uses_reset_requant) continue;
      auto golden = driver::createDevice("fsim", cfg);
      auto other = driver::createDevice(GetParam(), cfg);
      ASSERT_EQ(runDifferential(*golden, *other, p), "");
      ++ran;
    }
    EXPECT_EQ(ran, count);
  }
};

TEST_P(Differential, TinyPrograms) { compare("tiny", 50000, 200); }
TEST_P(Differential, PynqPrograms) { compare("pynq", 50000, 20); }
// pynq has the depthwise extension: about a third of its GEMM-kind
// instructions are DWGEMMs (strided ones, short runs, random taps).
TEST_P(Differential, PynqDwgemmPrograms) { compare("pynq", 70000, 300); }
// ultra96 (1x32x16) has DWGEMM with lane blocks: both halves of an input
// entry, on the cycle model built on demand and on the HLS C simulation.
TEST_P(Differential, Ultra96DwgemmPrograms) { compare("ultra96", 90000, 60); }
// gemm_requant (SETREQ, GEMM requant; REQ on both configs) on pynq and
// ultra96, which ship with it; until they do, the builtin JSON with the
// extension added (the cycle model is then built on demand, and the hls
// device, compiled for the shipped configs, refuses the config's hash).
TEST_P(Differential, PynqGemmRequantPrograms) { compare(withGemmRequant("pynq"), 110000, 150); }
TEST_P(Differential, Ultra96GemmRequantPrograms) { compare(withGemmRequant("ultra96"), 120000, 60); }
// The requantisation state after reset (REQ, zero operand, bias, immediate).
TEST_P(Differential, PynqGemmRequantFromReset) { compareFromReset(withGemmRequant("pynq"), 130000, 10); }

INSTANTIATE_TEST_SUITE_P(Backends, Differential, ::testing::ValuesIn(backendsToCompare()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// fsim, except that reading back the `target`-th allocated buffer flips bit 0
// of byte `offset` (runOnDevice allocates in RandomProgram::buffers order).
class BitFlipDevice : public driver::Device {
 public:
  BitFlipDevice(const hw::HwConfig& cfg, size_t target, uint64_t offset)
      : inner_(driver::createDevice("fsim", cfg)), target_(target), offset_(offset) {}
  std::string backendName() const override { return "bitflip"; }
  const hw::HwConfig& config() const override { return inner_->config(); }
  driver::Buffer allocate(uint64_t bytes) override {
    driver::Buffer b = inner_->allocate(bytes);
    if (allocations_++ == target_) target_addr_ = b.phys_addr;
    return b;
  }
  void release(const driver::Buffer& b) override { inner_->release(b); }
  void write(const driver::Buffer& b, uint64_t off, const void* data, uint64_t bytes) override {
    inner_->write(b, off, data, bytes);
  }
  void read(const driver::Buffer& b, uint64_t off, void* data, uint64_t bytes) override {
    inner_->read(b, off, data, bytes);
    if (b.phys_addr == target_addr_ && offset_ >= off && offset_ < off + bytes)
      static_cast<uint8_t*>(data)[offset_ - off] ^= 1;
  }
  void launch(uint64_t insn_addr, uint32_t count) override { inner_->launch(insn_addr, count); }
  driver::RunResult wait(std::chrono::milliseconds timeout) override { return inner_->wait(timeout); }

 private:
  std::unique_ptr<driver::Device> inner_;
  size_t target_, allocations_ = 0;
  uint64_t offset_, target_addr_ = ~uint64_t(0);
};

TEST(DifferentialHarness, CatchesACorruptedOutputByte) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  const uint64_t seed = 4242;
  const RandomProgram p = generateProgram(cfg, seed);
  const int out = p.bufferIndex("out");
  // A byte that a STORE writes, so that the report can name its writer.
  uint64_t offset = 0;
  int writer = -1;
  for (; offset < p.buffers[size_t(out)].init.size() && writer < 0; ++offset)
    writer = sim::progen::lastWriterOf(cfg, p, out, offset);
  ASSERT_GE(writer, 0) << "seed " << seed << " stores nothing";
  --offset;
  auto golden = driver::createDevice("fsim", cfg);
  BitFlipDevice broken(cfg, size_t(out), offset);
  const std::string report = runDifferential(*golden, broken, p);
  EXPECT_THAT(report, HasSubstr("seed 4242"));
  EXPECT_THAT(report, HasSubstr("buffer 'out' byte " + std::to_string(offset) + " "));
  EXPECT_THAT(report, HasSubstr("1 byte(s) differ"));
  EXPECT_THAT(report, HasSubstr("last written by instruction #" + std::to_string(writer) + ": STORE"));
  EXPECT_THAT(report, HasSubstr("FINISH"));  // the listing
}

TEST(DifferentialHarness, CatchesAStrayWriteIntoAnInputBuffer) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  const RandomProgram p = generateProgram(cfg, 77);
  const int inp = p.bufferIndex("inp");
  auto golden = driver::createDevice("fsim", cfg);
  BitFlipDevice broken(cfg, size_t(inp), 5);
  const std::string report = runDifferential(*golden, broken, p);
  EXPECT_THAT(report, HasSubstr("seed 77"));
  EXPECT_THAT(report, HasSubstr("buffer 'inp' byte 5 "));
  EXPECT_THAT(report, HasSubstr("no instruction writes this byte"));
}

TEST(DifferentialHarness, ReportsAFailedRun) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  RandomProgram p = generateProgram(cfg, 9);
  p.instructions.back().push_next = true;  // FINISH leaves a token behind
  auto a = driver::createDevice("fsim", cfg), b = driver::createDevice("fsim", cfg);
  const std::string report = runDifferential(*a, *b, p);
  EXPECT_THAT(report, HasSubstr("seed 9"));
  EXPECT_THAT(report, HasSubstr("fsim failed: "));
  EXPECT_THAT(report, HasSubstr("unconsumed token"));
}

TEST(DifferentialHarness, IdenticalDevicesAgree) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  auto a = driver::createDevice("fsim", cfg), b = driver::createDevice("fsim", cfg);
  for (uint64_t seed = 0; seed < 5; ++seed) EXPECT_EQ(runDifferential(*a, *b, generateProgram(cfg, seed)), "");
}

}  // namespace
}  // namespace vdla::progentest
