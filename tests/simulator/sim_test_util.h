#pragma once
// Shared helpers of the simulator tests: a functional simulator on its own
// simulated DRAM, with upload/download helpers, and a plain restatement of the
// ISA semantics from the comments in vdla/hw/isa.h (written independently of
// simulator/src/datapath.cpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/error.h"
#include "vdla/hw/float_requant.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/isa.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"
#include "vdla/sim/dram.h"
#include "vdla/sim/fsim.h"

namespace vdla::simtest {

using hw::AluOp;
using hw::Instruction;
using hw::Memory;
using hw::Uop;

// A functional simulator with its own DRAM.
struct Rig {
  hw::HwConfig cfg;
  sim::Dram dram;
  hw::IsaLayout layout;
  sim::FunctionalSimulator fsim;

  explicit Rig(const std::string& config_name)
      : cfg(hw::loadConfig(config_name)), dram(), layout(cfg), fsim(cfg, dram) {}

  // Lanes of one accumulator / output entry.
  uint32_t accLanes() const { return cfg.batch * cfg.block_out; }
  uint32_t entryBytes(Memory m) const { return cfg.entryBytes(m); }
  uint32_t depth(Memory m) const { return cfg.depth(m); }

  uint64_t uploadBytes(const void* data, size_t bytes) {
    uint64_t addr = dram.allocate(bytes);
    if (bytes) std::memcpy(dram.map(addr, bytes), data, bytes);
    return addr;
  }
  template <class T>
  uint64_t upload(const std::vector<T>& v) {
    return uploadBytes(v.data(), v.size() * sizeof(T));
  }
  uint64_t uploadUops(const std::vector<Uop>& uops) { return upload(hw::encodeMicroOps(layout, uops)); }
  template <class T>
  std::vector<T> download(uint64_t addr, size_t count) {
    std::vector<T> v(count);
    const uint8_t* p = dram.map(addr, count * sizeof(T));
    EXPECT_NE(p, nullptr) << "download of an unmapped range";
    if (p) std::memcpy(v.data(), p, count * sizeof(T));
    return v;
  }
  // DRAM entry index of a byte address for memory `m`.
  uint64_t entry(uint64_t addr, Memory m) const {
    EXPECT_EQ(addr % cfg.entryBytes(m), 0u);
    return addr / cfg.entryBytes(m);
  }

  // Encodes the program into DRAM and runs it through the fetch path.
  sim::ExecutionStats runStream(const std::vector<Instruction>& program) {
    std::vector<uint8_t> stream = hw::encodeInstructionStream(layout, program);
    uint64_t addr = upload(stream);
    sim::ExecutionStats s = fsim.run(addr, uint32_t(program.size()));
    dram.release(addr);
    return s;
  }

  // Reads the full 32-bit value of accumulator entries [first, first+k).
  // Destroys accumulator entries [scratch, scratch+4k) and the micro-ops
  // [0, 4): each byte plane p is copied with ALU MOV, shifted right by 8p with
  // ALU SHR and stored, so the low output byte of each is byte p.
  std::vector<int32_t> readAcc(uint32_t first, uint32_t k, uint32_t scratch) {
    const uint32_t lanes = accLanes();
    std::vector<Uop> uops;
    for (uint32_t p = 0; p < 4; ++p) uops.push_back({scratch + p * k, first, 0});
    uint64_t uop_addr = uploadUops(uops);
    const uint64_t out_bytes = uint64_t(4) * k * entryBytes(Memory::Output);
    uint64_t out_addr = dram.allocate(out_bytes);
    std::vector<Instruction> prog;
    prog.push_back(hw::makeLoad(Memory::Uop, 0, uop_addr / hw::kUopBytes, 1, 4, 4));
    for (uint32_t p = 0; p < 4; ++p) {
      hw::LoopNest nest{p, p + 1, 1, k, 0, 1, 0, 1};
      prog.push_back(hw::makeAlu(AluOp::Mov, nest));
      prog.push_back(hw::makeAluImm(AluOp::Shr, nest, int32_t(8 * p)));
    }
    prog.back().push_next = true;
    Instruction st = hw::makeStore(scratch, entry(out_addr, Memory::Output), 1, 4 * k, 4 * k);
    st.pop_prev = true;
    prog.push_back(st);
    prog.push_back(hw::makeFinish());
    runStream(prog);
    std::vector<uint8_t> planes = download<uint8_t>(out_addr, out_bytes);
    dram.release(out_addr);
    dram.release(uop_addr);
    std::vector<int32_t> values(size_t(k) * lanes);
    for (size_t i = 0; i < values.size(); ++i) {
      uint32_t v = 0;
      for (uint32_t p = 0; p < 4; ++p) v |= uint32_t(planes[p * values.size() + i]) << (8 * p);
      values[i] = int32_t(v);
    }
    return values;
  }

  // Runs STORE of OUT entries [first, first+k) and returns their bytes.
  std::vector<int8_t> readOut(uint32_t first, uint32_t k) {
    const uint64_t bytes = uint64_t(k) * entryBytes(Memory::Output);
    uint64_t out_addr = dram.allocate(bytes);
    std::vector<Instruction> prog = {hw::makeStore(first, entry(out_addr, Memory::Output), 1, k, k), hw::makeFinish()};
    runStream(prog);
    std::vector<int8_t> v = download<int8_t>(out_addr, bytes);
    dram.release(out_addr);
    return v;
  }

  // Fills accumulator entries [first, first+k) from 32-bit values.
  void writeAcc(uint32_t first, const std::vector<int32_t>& values) {
    const uint32_t k = uint32_t(values.size() / accLanes());
    uint64_t addr = upload(values);
    runStream({hw::makeLoad(Memory::Acc, first, entry(addr, Memory::Acc), 1, k, k), hw::makeFinish()});
    dram.release(addr);
  }
};

// ---- The ISA, restated from the comments in vdla/hw/isa.h ----

inline int32_t wrap32(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }

inline int8_t lowByte(int32_t v) { return int8_t(uint8_t(uint32_t(v) & 0xffu)); }

// `imm` is the instruction's immediate: REQ's clip bounds, FREQ's zero point.
inline int32_t isaAlu(AluOp op, int32_t a, int32_t b, int32_t imm = 0) {
  int64_t s = b;
  if (s > 31) s = 31;
  if (s < -31) s = -31;
  switch (op) {
    case AluOp::Min: return a < b ? a : b;
    case AluOp::Max: return a > b ? a : b;
    case AluOp::Add: return wrap32(int64_t(a) + int64_t(b));
    case AluOp::Mul: return wrap32(int64_t(a) * int64_t(b));
    case AluOp::Shr:
      if (s >= 0) return wrap32(int64_t(a) >> s);  // arithmetic
      return wrap32(int64_t(uint64_t(uint32_t(a)) << -s));
    case AluOp::Rshr:
      if (s > 0) return wrap32((int64_t(a) + (int64_t(1) << (s - 1))) >> s);
      if (s == 0) return a;
      return wrap32(int64_t(uint64_t(uint32_t(a)) << -s));
    case AluOp::Mov: return b;
    case AluOp::Clip: {
      const int32_t lo = lowByte(b), hi = lowByte(b >> 8);
      return a < lo ? (lo < hi ? lo : hi) : (a < hi ? a : hi);
    }
    case AluOp::MulShr: {
      const int64_t m = b >> 6;  // arithmetic
      const int sh = int(uint32_t(b) & 63u);
      int64_t p = int64_t(a) * m;
      if (sh > 0) p += int64_t(1) << (sh - 1);
      return wrap32(p >> sh);
    }
    case AluOp::Req: return isaAlu(AluOp::Clip, isaAlu(AluOp::MulShr, a, b), imm);
    // the definition itself (tested against binary32 arithmetic in vdla_hw_float_requant_test)
    case AluOp::FReq: return hw::floatRequant(a, uint32_t(b), imm);
  }
  ADD_FAILURE() << "unknown ALU op";
  return 0;
}

}  // namespace vdla::simtest
