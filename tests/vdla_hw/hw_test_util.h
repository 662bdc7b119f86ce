#pragma once
// Shared helpers for the vdla_hw tests: the shipped configs, a config with
// extreme ISA widths, and random instructions whose every field holds a legal
// value within its width.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/error.h"
#include "vdla/hw/isa.h"
#include "vdla/hw/isa_layout.h"

namespace vdla::hw::testing {

inline std::vector<HwConfig> shippedConfigs() {
  std::vector<HwConfig> out;
  for (const std::string& name : builtinConfigNames()) out.push_back(loadConfig(name));
  return out;
}

// Small odd-shaped buffers with the widest legal DRAM address, a 5-bit pad
// field and a 32-bit signed immediate.
inline const char* kWideConfigJson = R"({
  "name": "wide",
  "target": {"board": "b", "part": "p", "clock_mhz": 100},
  "gemm": {"batch": 2, "block_in": 4, "block_out": 8},
  "data_bits": {"input": 8, "weight": 8, "accumulator": 32, "output": 8},
  "buffers_kib": {"uop": 1, "input": 1, "weight": 2, "accumulator": 4, "output": 1},
  "axi": {"data_bits": 64},
  "queues": {"command_depth": 4, "token_depth": 4},
  "isa": {"dram_addr_bits": 32, "xfer_size_bits": 16, "pad_bits": 5, "loop_iter_bits": 16, "alu_imm_bits": 32}
})";

// Shipped configs plus the wide one.
inline std::vector<HwConfig> allTestConfigs() {
  std::vector<HwConfig> out = shippedConfigs();
  out.push_back(parseConfig(kWideConfigJson, "wide"));
  return out;
}

inline uint64_t lowMask(uint32_t width) { return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1; }

inline int64_t fieldMin(const BitField& f) { return f.is_signed ? -(int64_t(1) << (f.width - 1)) : 0; }
inline int64_t fieldMax(const BitField& f) {
  return f.is_signed ? (int64_t(1) << (f.width - 1)) - 1 : int64_t(lowMask(f.width));
}

// A legal value of field `f` of an instruction with opcode `op`: uniform over
// the field's range, with the extremes picked more often.
inline int64_t randomFieldValue(std::mt19937_64& rng, Opcode op, const BitField& f) {
  switch (f.field) {
    case Field::Opcode: return int64_t(op);
    case Field::Memory: {
      if (op == Opcode::Store) return int64_t(Memory::Output);
      static const Memory legal[] = {Memory::Uop, Memory::Weight, Memory::Input, Memory::Acc, Memory::Acc8};
      return int64_t(legal[rng() % 5]);
    }
    case Field::AluOp: return int64_t(rng() % kNumAluOps);
    default: break;
  }
  switch (rng() % 8) {
    case 0: return fieldMin(f);
    case 1: return fieldMax(f);
    case 2: return 0;
    default: return fieldMin(f) + int64_t(rng() & lowMask(f.width));
  }
}

inline Instruction randomInstruction(std::mt19937_64& rng, const IsaLayout& layout, Opcode op) {
  Instruction insn;
  insn.opcode = op;
  for (const BitField& f : layout.fields(op)) setField(insn, f.field, randomFieldValue(rng, op, f));
  if (op == Opcode::Alu) insn.alu_op = AluOp(uint64_t(insn.alu_op) % layout.numAluOps());  // the config's ops
  if (op == Opcode::Alu && !insn.use_imm) insn.imm = 0;  // imm is only encodable with use_imm
  if (op == Opcode::SetReq)                              // REQ, or FREQ where the config has it
    insn.alu_op = (layout.numAluOps() > int(AluOp::FReq) && rng() % 2) ? AluOp::FReq : AluOp::Req;
  if (op == Opcode::Gemm && insn.requant) insn.reset = false;  // the two exclude each other
  if (op == Opcode::DwGemm) {                                  // taps within the config's window, a nonzero stride
    insn.taps = 1 + uint32_t(rng() % layout.depthwiseTaps());
    insn.stride = 1 + uint32_t(rng() % 3);
  }
  return insn;
}

// An opcode the layout's config has.
inline Opcode randomOpcode(std::mt19937_64& rng, const IsaLayout& layout) {
  for (;;) {
    const Opcode op = Opcode(rng() % kNumOpcodes);
    if (layout.hasOpcode(op)) return op;
  }
}

// Runs `fn` and returns the vdla::Error message it throws; fails the test (and
// returns "") if it throws nothing or something else.
template <typename Fn>
std::string errorOf(Fn&& fn) {
  try {
    fn();
  } catch (const vdla::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected vdla::Error, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected vdla::Error, nothing was thrown";
  return "";
}

}  // namespace vdla::hw::testing
