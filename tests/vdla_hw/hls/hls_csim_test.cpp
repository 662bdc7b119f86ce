// The C simulation's register file, driven directly (no Device): the map of
// docs/hardware.md (hash, clock, read-back, START while running, reset) and
// the refusal of configs it was not built for; DWGEMM against fsim, its index
// checks and its decode errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "vdla/hls/hls_csim.h"
#include "vdla/hw/error.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/registers.h"
#include "vdla/hw/run_status.h"
#include "vdla/sim/dram.h"
#include "vdla/sim/fsim.h"

namespace {

namespace regs = vdla::hw::regs;
using ::testing::HasSubstr;

// One buffer at a fixed physical address.
class OneBuffer : public vdla::hls::CsimDram {
 public:
  static constexpr uint64_t kBase = 0x20000000;
  explicit OneBuffer(size_t bytes) : data_(bytes) {}
  uint8_t* map(uint64_t addr, uint64_t bytes) override {
    if (addr < kBase || addr + bytes > kBase + data_.size()) return nullptr;
    return data_.data() + (addr - kBase);
  }
  std::vector<uint8_t> data_;
};

uint64_t reg64(const vdla::hls::HlsCsim& c, uint32_t lo) {
  return (uint64_t(c.readRegister(lo + 4)) << 32) | c.readRegister(lo);
}

TEST(HlsCsim, ExposesHashAndClockOfItsConfig) {
  for (const std::string& name : vdla::hls::hlsCsimConfigs()) {
    const auto cfg = vdla::hw::loadConfig(name);
    OneBuffer dram(64);
    auto csim = vdla::hls::createHlsCsim(cfg, dram);
    EXPECT_EQ(reg64(*csim, regs::kHashLo), cfg.hash) << name;
    EXPECT_EQ(csim->readRegister(regs::kClockKhz), uint32_t(cfg.clock_mhz * 1000 + 0.5)) << name;
    EXPECT_EQ(csim->readRegister(regs::kCtrl), 0u) << name;
  }
}

TEST(HlsCsim, RunsAProgramThroughTheRegisters) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  const vdla::hw::IsaLayout layout(cfg);
  OneBuffer dram(4096);
  // ALU MOV of an immediate into ACC[0..3], then STORE of OUT[0..3].
  const uint32_t uop_entry = 0;
  std::memcpy(&dram.data_[2048], &uop_entry, 4);
  vdla::hw::Instruction store =
      vdla::hw::makeStore(0, (OneBuffer::kBase + 1024) / cfg.entryBytes(vdla::hw::Memory::Output), 1, 4, 4);
  store.pop_prev = true;
  vdla::hw::Instruction mov = vdla::hw::makeAluImm(vdla::hw::AluOp::Mov, {0, 1, 1, 4, 0, 1, 0, 0}, -3);
  mov.push_next = true;
  const std::vector<vdla::hw::Instruction> program = {
      vdla::hw::makeLoad(vdla::hw::Memory::Uop, 0, (OneBuffer::kBase + 2048) / 4, 1, 1, 1), mov, store,
      vdla::hw::makeFinish()};
  for (size_t i = 0; i < program.size(); ++i) {
    const auto enc = layout.encode(program[i]);
    std::memcpy(&dram.data_[16 * i], enc.data(), 16);
  }
  auto csim = vdla::hls::createHlsCsim(cfg, dram);
  csim->writeRegister(regs::kInsnAddr, uint32_t(OneBuffer::kBase));
  csim->writeRegister(regs::kInsnCount, uint32_t(program.size()));
  EXPECT_EQ(csim->readRegister(regs::kInsnAddr), uint32_t(OneBuffer::kBase));
  EXPECT_EQ(csim->readRegister(regs::kInsnCount), 4u);
  csim->writeRegister(regs::kCtrl, regs::kCtrlStart);
  EXPECT_EQ(csim->readRegister(regs::kCtrl), regs::kCtrlRunning);
  csim->writeRegister(regs::kInsnCount, 99);  // ignored while running, as in the RTL
  EXPECT_EQ(csim->readRegister(regs::kInsnCount), 4u);
  EXPECT_EQ(csim->step(1000), vdla::hls::HlsCsim::Progress::Idle);
  EXPECT_EQ(csim->readRegister(regs::kCtrl), regs::kCtrlDone);
  EXPECT_EQ(csim->readRegister(regs::kErrorCode), 0u);
  EXPECT_EQ(reg64(*csim, regs::kCounters + 8 * regs::kCntAluVectors), 4u);
  EXPECT_GT(reg64(*csim, regs::kCounters + 8 * regs::kCntCycles), 0u);
  // OUT = low byte of -3 in every lane of entries 0..3 (batch 2 x block_out 8).
  for (int b = 0; b < 4 * 16; ++b) EXPECT_EQ(dram.data_[1024 + size_t(b)], 0xfd) << "byte " << b;
  EXPECT_EQ(dram.data_[1024 + 64], 0);

  // An error sets ERROR and the code/module/index registers; reset clears them.
  csim->writeRegister(regs::kInsnCount, 0);
  csim->writeRegister(regs::kCtrl, regs::kCtrlStart);
  csim->step(10);
  EXPECT_EQ(csim->readRegister(regs::kCtrl), regs::kCtrlError);
  EXPECT_EQ(csim->readRegister(regs::kErrorCode), regs::kErrEmpty);
  csim->reset();
  EXPECT_EQ(csim->readRegister(regs::kCtrl), 0u);
  EXPECT_EQ(csim->readRegister(regs::kErrorCode), 0u);
}

TEST(HlsCsim, RefusesAConfigItWasNotBuiltFrom) {
  OneBuffer dram(64);
  auto cfg = vdla::hw::loadConfig("tiny");
  cfg.hash ^= 1;
  try {
    vdla::hls::createHlsCsim(cfg, dram);
    FAIL() << "a config with another hash must be refused";
  } catch (const vdla::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("HLS C simulation of config 'tiny' was built from configuration hash"));
  }
  cfg = vdla::hw::loadConfig("tiny");
  cfg.name = "custom";
  try {
    vdla::hls::createHlsCsim(cfg, dram);
    FAIL() << "an unknown config must be refused";
  } catch (const vdla::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no HLS C simulation for config 'custom'"));
  }
}

// ---------------------------------------------------------------- DWGEMM
// One program around a DWGEMM (LOAD UOP/INP/WGT/ACC, the DWGEMM, STORE of
// OUT) run by fsim and by the C simulation on two DRAMs of equal contents:
// the DRAMs must end equal, or both runs must fail with the same message.
// Random programs (tests/simulator/progen) cover DWGEMM's arithmetic; these
// cases pin down the index checks, which random valid programs never fail.

using vdla::hw::Instruction;
using vdla::hw::Memory;

// The C simulation's DRAM over a sim::Dram.
class SimDramPort : public vdla::hls::CsimDram {
 public:
  explicit SimDramPort(vdla::sim::Dram& dram) : dram_(dram) {}
  uint8_t* map(uint64_t addr, uint64_t bytes) override { return dram_.map(addr, bytes); }

 private:
  vdla::sim::Dram& dram_;
};

// Byte offsets in the one buffer of a case.
constexpr uint64_t kInsnAt = 0, kUopAt = 1024, kInpAt = 2048, kWgtAt = 4096, kAccAt = 8192, kOutAt = 12288,
                   kBufferBytes = 16384;
constexpr uint32_t kInpEntries = 64, kWgtEntries = 4, kAccEntries = 32, kOutEntries = 32;

struct RunOutcome {
  bool ok = false;
  std::string message;          // the error (hls: as the driver words it from the registers)
  uint32_t code = 0, info = 0;  // hls: ERROR_CODE and ERROR_INFO
  std::vector<uint8_t> dram;    // the buffer after the run
};

class DwgemmCase {
 public:
  explicit DwgemmCase(const std::string& config) : cfg_(vdla::hw::loadConfig(config)), layout_(cfg_) {}

  // The program around `dw`; `patch` edits its encoding (fields the encoder
  // refuses to write).
  void build(const std::vector<vdla::hw::Uop>& uops, Instruction dw,
             void (*patch)(vdla::hw::EncodedInstruction&, const vdla::hw::IsaLayout&) = nullptr) {
    init_.assign(kBufferBytes, 0);
    uint32_t seed = 99;
    for (uint64_t b = kInpAt; b < kBufferBytes; ++b) {
      seed = seed * 1103515245u + 12345u;
      init_[b] = uint8_t(seed >> 16);
    }
    for (size_t u = 0; u < uops.size(); ++u) {
      const uint32_t word = layout_.encodeUop(uops[u]);
      std::memcpy(&init_[kUopAt + 4 * u], &word, 4);
    }
    auto entry = [&](uint64_t at, Memory m) { return (base_ + at) / cfg_.entryBytes(m); };
    Instruction wgt = vdla::hw::makeLoad(Memory::Weight, 0, entry(kWgtAt, Memory::Weight), 1, kWgtEntries, kWgtEntries);
    wgt.push_next = true;
    dw.pop_prev = dw.push_next = true;
    Instruction store = vdla::hw::makeStore(0, entry(kOutAt, Memory::Output), 1, kOutEntries, kOutEntries);
    store.pop_prev = true;
    program_ = {
        vdla::hw::makeLoad(Memory::Uop, 0, entry(kUopAt, Memory::Uop), 1, uint32_t(uops.size()), uint32_t(uops.size())),
        vdla::hw::makeLoad(Memory::Input, 0, entry(kInpAt, Memory::Input), 1, kInpEntries, kInpEntries),
        wgt,
        vdla::hw::makeLoad(Memory::Acc, 0, entry(kAccAt, Memory::Acc), 1, kAccEntries, kAccEntries),
        dw,
        store,
        vdla::hw::makeFinish()};
    for (size_t i = 0; i < program_.size(); ++i) {
      // The config's own encoder where it has the instruction, pynq's where
      // not (a DWGEMM for a config without the extension).
      vdla::hw::EncodedInstruction enc{0, 0};
      if (program_[i].opcode == vdla::hw::Opcode::DwGemm && !cfg_.depthwise_taps)
        enc[0] = uint64_t(vdla::hw::Opcode::DwGemm);  // the opcode alone: fetch stops there
      else
        enc = layout_.encode(program_[i]);
      if (program_[i].opcode == vdla::hw::Opcode::DwGemm && patch) patch(enc, layout_);
      std::memcpy(&init_[kInsnAt + 16 * i], enc.data(), 16);
    }
  }

  RunOutcome runFsim() const {
    vdla::sim::Dram dram;
    const uint64_t base = dram.allocate(kBufferBytes);
    EXPECT_EQ(base, base_);
    std::memcpy(dram.map(base, kBufferBytes), init_.data(), kBufferBytes);
    RunOutcome r;
    try {
      vdla::sim::FunctionalSimulator fsim(cfg_, dram);
      fsim.run(base + kInsnAt, uint32_t(program_.size()));
      r.ok = true;
    } catch (const vdla::Error& e) {
      r.message = e.what();
    }
    const uint8_t* p = dram.map(base, kBufferBytes);
    r.dram.assign(p, p + kBufferBytes);
    return r;
  }

  RunOutcome runHls() const {
    vdla::sim::Dram dram;
    const uint64_t base = dram.allocate(kBufferBytes);
    EXPECT_EQ(base, base_);
    std::memcpy(dram.map(base, kBufferBytes), init_.data(), kBufferBytes);
    SimDramPort port(dram);
    auto csim = vdla::hls::createHlsCsim(cfg_, port);
    csim->writeRegister(regs::kInsnAddr, uint32_t(base + kInsnAt));
    csim->writeRegister(regs::kInsnCount, uint32_t(program_.size()));
    csim->writeRegister(regs::kCtrl, regs::kCtrlStart);
    EXPECT_EQ(csim->step(1000000), vdla::hls::HlsCsim::Progress::Idle);
    RunOutcome r;
    const uint32_t ctrl = csim->readRegister(regs::kCtrl);
    r.ok = ctrl == regs::kCtrlDone;
    r.code = csim->readRegister(regs::kErrorCode);
    r.info = csim->readRegister(regs::kErrorInfo);
    if (ctrl & regs::kCtrlError) {
      auto lookup = [this](uint32_t i) -> std::optional<Instruction> {
        if (i >= program_.size()) return std::nullopt;
        return program_[i];
      };
      r.message = vdla::hw::describeRunError(r.code, csim->readRegister(regs::kErrorIndex), r.info,
                                             uint32_t(program_.size()), lookup, cfg_);
    }
    const uint8_t* p = dram.map(base, kBufferBytes);
    r.dram.assign(p, p + kBufferBytes);
    return r;
  }

  // Both runs succeed with equal DRAMs, or fail with the same message (hls
  // adds the register decoding after fsim's words); returns hls's outcome.
  RunOutcome expectAgreement() const {
    const RunOutcome f = runFsim(), h = runHls();
    EXPECT_EQ(h.ok, f.ok) << "fsim: " << (f.ok ? "ok" : f.message) << "\nhls: " << (h.ok ? "ok" : h.message);
    if (f.ok && h.ok) {
      size_t differ = 0;
      for (size_t b = 0; b < kBufferBytes; ++b) differ += f.dram[b] != h.dram[b];
      EXPECT_EQ(differ, 0u) << "bytes that differ between fsim and hls";
      EXPECT_NE(f.dram, init_) << "the case stores nothing";
    } else if (!f.ok && !h.ok && !f.message.empty()) {
      EXPECT_EQ(h.message.substr(0, f.message.size()), f.message) << "hls: " << h.message;
      EXPECT_EQ(h.dram, init_) << "a refused instruction changes nothing";
    }
    return h;
  }

 private:
  vdla::hw::HwConfig cfg_;
  vdla::hw::IsaLayout layout_;
  const uint64_t base_ = vdla::sim::Dram().allocate(kBufferBytes);  // where every case's buffer lies
  std::vector<uint8_t> init_;
  std::vector<Instruction> program_;
};

vdla::hw::LoopNest nest(uint32_t uops, uint32_t iter_out, uint32_t iter_in, uint32_t dst_out, uint32_t dst_in,
                        uint32_t src_out, uint32_t src_in, uint32_t wgt_out) {
  vdla::hw::LoopNest l;
  l.uop_end = uops;
  l.iter_out = iter_out;
  l.iter_in = iter_in;
  l.dst_out = dst_out;
  l.dst_in = dst_in;
  l.src_out = src_out;
  l.src_in = src_in;
  l.wgt_out = wgt_out;
  return l;
}

TEST(HlsCsimDwgemm, ComputesAsFsim) {
  struct Shape {
    const char* name;
    std::vector<vdla::hw::Uop> uops;
    vdla::hw::LoopNest nest;
    uint32_t taps, stride;
  };
  const Shape shapes[] = {
      {"3 taps, stride 1, two runs", {{0, 0, 0}}, nest(1, 2, 9, 8, 1, 10, 1, 1), 3, 1},
      // taps < depthwise_taps: the window's older inputs still meet their
      // weight rows.
      {"2 taps, stride 2, two micro-ops", {{0, 0, 0}, {16, 20, 2}}, nest(2, 2, 8, 4, 1, 9, 1, 1), 2, 2},
      {"1 tap, stride 3, strided inputs", {{1, 3, 1}}, nest(1, 3, 7, 9, 2, 20, 2, 1), 1, 3},
      {"outputs into one entry", {{5, 7, 3}}, nest(1, 2, 6, 1, 0, 11, 3, 0), 3, 1},
      {"runs shorter than the window write nothing", {{0, 0, 0}}, nest(1, 2, 2, 3, 1, 5, 1, 1), 3, 1},
      {"micro-ops in reverse", {{29, 40, 3}, {2, 0, 0}, {9, 50, 2}}, nest(3, 1, 5, 0, 2, 0, 2, 0), 3, 2},
  };
  for (const Shape& s : shapes) {
    SCOPED_TRACE(s.name);
    DwgemmCase c("pynq");
    c.build(s.uops, vdla::hw::makeDwGemm(s.nest, s.taps, s.stride));
    EXPECT_TRUE(c.expectAgreement().ok);
  }
}

// Every iteration reads INP and WGT; only the iterations that complete a
// window write ACC, so dst is checked over those alone (pynq: INP and ACC
// 2048 entries, WGT 1024).
TEST(HlsCsimDwgemm, ChecksIndicesLikeFsim) {
  struct Bad {
    const char* name;
    std::vector<vdla::hw::Uop> uops;
    vdla::hw::LoopNest nest;
    uint32_t taps, stride;
    uint32_t code, info;  // ERROR_CODE (compute module) and ERROR_INFO; code 0: the run succeeds
  };
  const uint32_t compute = 2u << 8;
  const Bad cases[] = {
      // writes at i = 2, 5, 8: the last dst is 2040 + 2 * 3 = 2046, while
      // GEMM's rule (i = 9) would reach 2067
      {"dst of the writing iterations only", {{2040, 0, 0}}, nest(1, 1, 10, 0, 3, 0, 1, 0), 3, 3, 0, 0},
      {"dst past ACC", {{2042, 0, 0}}, nest(1, 1, 10, 0, 3, 0, 1, 0), 3, 3, compute | regs::kErrDstRange, 2048},
      {"dst past ACC in the second run",
       {{2040, 0, 0}},
       nest(1, 2, 4, 7, 1, 4, 1, 0),
       3,
       1,
       compute | regs::kErrDstRange,
       2048},
      // i = 9 writes nothing but still reads INP[4088 + 9] (INP: 4096 entries)
      {"src past INP in a non-writing iteration",
       {{0, 4088, 0}},
       nest(1, 1, 10, 0, 1, 0, 1, 0),
       3,
       3,
       compute | regs::kErrSrcRange,
       4097},
      {"src past INP in a run too short to write",
       {{2047, 4095, 0}},
       nest(1, 1, 2, 0, 1, 0, 1, 0),
       3,
       1,
       compute | regs::kErrSrcRange,
       4096},
      {"dst unchecked where nothing is written", {{2047, 0, 0}}, nest(1, 2, 2, 100, 100, 2, 1, 0), 3, 1, 0, 0},
      {"wgt past WGT with the outer loop",
       {{0, 0, 511}},
       nest(1, 2, 3, 1, 1, 3, 1, 1),
       3,
       1,
       compute | regs::kErrWgtRange,
       512},
      {"src before wgt before dst",
       {{2047, 4095, 511}},
       nest(1, 2, 3, 1, 1, 1, 1, 1),
       3,
       1,
       compute | regs::kErrSrcRange,
       4098},
      {"wgt before dst", {{2047, 0, 511}}, nest(1, 2, 3, 1, 1, 1, 1, 1), 3, 1, compute | regs::kErrWgtRange, 512},
  };
  for (const Bad& b : cases) {
    SCOPED_TRACE(b.name);
    DwgemmCase c("pynq");
    c.build(b.uops, vdla::hw::makeDwGemm(b.nest, b.taps, b.stride));
    const RunOutcome h = c.expectAgreement();
    EXPECT_EQ(h.ok, b.code == 0) << h.message;
    EXPECT_EQ(h.code, b.code);
    if (b.code) {
      EXPECT_EQ(h.info, b.info);
    }
  }
}

void putField(vdla::hw::EncodedInstruction& enc, const vdla::hw::IsaLayout& layout, vdla::hw::Field field,
              uint64_t value) {
  for (const vdla::hw::BitField& f : layout.fields(vdla::hw::Opcode::DwGemm)) {
    if (f.field != field) continue;
    for (uint32_t k = 0; k < f.width; ++k) {
      const uint32_t bit = f.offset + k;
      enc[bit / 64] = (enc[bit / 64] & ~(uint64_t(1) << (bit % 64))) | (((value >> k) & 1) << (bit % 64));
    }
    return;
  }
  FAIL() << "DWGEMM has no field " << vdla::hw::fieldName(field);
}

TEST(HlsCsimDwgemm, RefusesWhatFsimCannotDecode) {
  struct Refused {
    const char* name;
    const char* config;
    void (*patch)(vdla::hw::EncodedInstruction&, const vdla::hw::IsaLayout&);
    uint32_t code;  // fetch reports it
  };
  const Refused cases[] = {
      {"no depthwise extension", "tiny", nullptr, regs::kErrOpcode},
      {"taps 0", "pynq", [](auto& e, const auto& l) { putField(e, l, vdla::hw::Field::Taps, 0); }, regs::kErrDwShape},
      {"taps past depthwise_taps", "pynq", [](auto& e, const auto& l) { putField(e, l, vdla::hw::Field::Taps, 6); },
       regs::kErrDwShape},
      {"stride 0", "pynq", [](auto& e, const auto& l) { putField(e, l, vdla::hw::Field::Stride, 0); },
       regs::kErrDwShape},
      {"stray bits", "pynq", [](auto& e, const auto&) { e[1] |= uint64_t(1) << 63; }, regs::kErrStrayBits},
  };
  for (const Refused& r : cases) {
    SCOPED_TRACE(r.name);
    DwgemmCase c(r.config);
    c.build({{0, 0, 0}}, vdla::hw::makeDwGemm(nest(1, 1, 4, 0, 1, 0, 1, 0), 3, 1), r.patch);
    const RunOutcome f = c.runFsim(), h = c.runHls();
    EXPECT_FALSE(f.ok);
    EXPECT_FALSE(h.ok);
    EXPECT_EQ(h.code, r.code) << h.message;  // module 0: fetch
    EXPECT_THAT(h.message, HasSubstr("instruction 4"));
  }
}

}  // namespace
