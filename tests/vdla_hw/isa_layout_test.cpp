// Tests of vdla_hw/isa_layout: field widths, encode/decode and micro-ops.
#include "vdla/hw/isa_layout.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "hw_test_util.h"
#include "vdla/hw/error.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/isa.h"

namespace vdla::hw {
namespace {

using testing::allTestConfigs;
using testing::errorOf;
using testing::fieldMax;
using testing::fieldMin;
using testing::lowMask;

uint32_t log2u(uint64_t v) {
  uint32_t b = 0;
  while ((uint64_t(1) << b) < v) ++b;
  return b;
}

// An independent bit writer (one bit at a time) to build expected encodings.
void setBits(EncodedInstruction& w, uint32_t offset, uint32_t width, uint64_t value) {
  for (uint32_t i = 0; i < width; ++i)
    if ((value >> i) & 1) w[(offset + i) / 64] |= uint64_t(1) << ((offset + i) % 64);
}

const BitField* findField(const IsaLayout& layout, Opcode op, Field f) {
  for (const BitField& b : layout.fields(op))
    if (b.field == f) return &b;
  return nullptr;
}

// ---- the layout itself ----

// Widths of every field, computed from the config's JSON-level numbers here,
// not from the library's derived quantities.
std::map<Field, uint32_t> expectedWidths(const HwConfig& c, Opcode op) {
  const uint32_t uop = log2u(c.uop_bytes / 4);
  const uint32_t inp = log2u(c.input_bytes / (c.batch * c.block_in));
  const uint32_t wgt = log2u(c.weight_bytes / (c.block_in * c.block_out));
  const uint32_t acc = log2u(c.acc_bytes / (4 * c.batch * c.block_out));
  const uint32_t out = log2u(c.output_bytes / (c.batch * c.block_out));
  std::map<Field, uint32_t> w = {
      {Field::Opcode, 3}, {Field::PopPrev, 1}, {Field::PopNext, 1}, {Field::PushPrev, 1}, {Field::PushNext, 1}};
  switch (op) {
    case Opcode::Load:
    case Opcode::Store:
      w[Field::Memory] = 3;
      w[Field::SramBase] = std::max({uop, inp, wgt, acc, out});
      w[Field::DramBase] = c.dram_addr_bits;
      w[Field::YSize] = w[Field::XSize] = w[Field::XStride] = c.xfer_size_bits;
      w[Field::YPadTop] = w[Field::YPadBottom] = w[Field::XPadLeft] = w[Field::XPadRight] = c.pad_bits;
      break;
    case Opcode::Gemm:
      w[Field::Reset] = 1;
      w[Field::UopBegin] = uop;
      w[Field::UopEnd] = uop + 1;
      w[Field::IterOut] = w[Field::IterIn] = c.loop_iter_bits;
      w[Field::DstFactorOut] = w[Field::DstFactorIn] = acc;
      w[Field::SrcFactorOut] = w[Field::SrcFactorIn] = inp;
      w[Field::WgtFactorOut] = w[Field::WgtFactorIn] = wgt;
      if (c.gemm_requant) w[Field::Requant] = 1;  // extension gemm_requant
      break;
    case Opcode::SetReq:
      w[Field::AluOp] = 4;
      w[Field::SramBase] = acc;
      w[Field::Imm] = c.alu_imm_bits;
      break;
    case Opcode::Alu:
      w[Field::AluOp] = 4;
      w[Field::UseImm] = 1;
      w[Field::UopBegin] = uop;
      w[Field::UopEnd] = uop + 1;
      w[Field::IterOut] = w[Field::IterIn] = c.loop_iter_bits;
      w[Field::DstFactorOut] = w[Field::DstFactorIn] = acc;
      w[Field::SrcFactorOut] = w[Field::SrcFactorIn] = acc;
      w[Field::Imm] = c.alu_imm_bits;
      if (c.alu_bias_clear) w[Field::BiasClear] = 1;  // extension alu_bias_clear
      break;
    case Opcode::DwGemm:
      w[Field::UopBegin] = uop;
      w[Field::UopEnd] = uop + 1;
      w[Field::IterOut] = w[Field::IterIn] = c.loop_iter_bits;
      w[Field::DstFactorOut] = w[Field::DstFactorIn] = acc;
      w[Field::SrcFactorOut] = w[Field::SrcFactorIn] = inp;
      w[Field::WgtFactorOut] = wgt;
      w[Field::Taps] = 4;
      w[Field::Stride] = 2;
      // Only with DWGEMM where block_in exceeds block_out: log2 of the lane blocks.
      if (c.depthwise_taps && c.block_in > c.block_out) {
        uint32_t bits = 0;
        while ((1u << bits) < c.block_in / c.block_out) ++bits;
        w[Field::LaneBlock] = bits;
      }
      if (c.depthwise_taps && c.gemm_requant) w[Field::Requant] = 1;  // extension gemm_requant
      break;
    case Opcode::Finish: break;
  }
  return w;
}

TEST(IsaLayoutTest, FieldWidthsFollowTheConfig) {
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout layout(c);
    for (int op = 0; op < kNumOpcodes; ++op) {
      SCOPED_TRACE(c.name + " " + opcodeName(Opcode(op)));
      std::map<Field, uint32_t> expected = expectedWidths(c, Opcode(op));
      std::map<Field, uint32_t> actual;
      for (const BitField& f : layout.fields(Opcode(op))) {
        EXPECT_TRUE(actual.emplace(f.field, f.width).second) << "field twice: " << fieldName(f.field);
        EXPECT_EQ(f.is_signed, f.field == Field::Imm) << fieldName(f.field);
      }
      EXPECT_EQ(actual, expected);
    }
  }
}

TEST(IsaLayoutTest, PynqWidthsByHand) {
  IsaLayout l(loadConfig("pynq"));
  auto width = [&](Opcode op, Field f) {
    const BitField* b = findField(l, op, f);
    return b ? int(b->width) : -1;
  };
  EXPECT_EQ(width(Opcode::Load, Field::SramBase), 13);  // the 8192-entry uop memory is the deepest
  EXPECT_EQ(width(Opcode::Load, Field::DramBase), 32);
  EXPECT_EQ(width(Opcode::Store, Field::YSize), 16);
  EXPECT_EQ(width(Opcode::Load, Field::XPadRight), 4);
  EXPECT_EQ(width(Opcode::Gemm, Field::UopBegin), 13);
  EXPECT_EQ(width(Opcode::Gemm, Field::UopEnd), 14);  // holds 8192
  EXPECT_EQ(width(Opcode::Gemm, Field::IterIn), 14);
  EXPECT_EQ(width(Opcode::Gemm, Field::DstFactorOut), 11);
  EXPECT_EQ(width(Opcode::Gemm, Field::SrcFactorIn), 12);
  EXPECT_EQ(width(Opcode::Gemm, Field::WgtFactorIn), 9);
  EXPECT_EQ(width(Opcode::Alu, Field::Imm), 16);
  EXPECT_EQ(width(Opcode::Alu, Field::Reset), -1);
  EXPECT_EQ(width(Opcode::Gemm, Field::Imm), -1);
  EXPECT_EQ(width(Opcode::Finish, Field::Memory), -1);
  EXPECT_EQ(l.usedBits(Opcode::Load), 119u);
  EXPECT_EQ(l.usedBits(Opcode::Store), 119u);
  EXPECT_EQ(l.usedBits(Opcode::Gemm), 128u);   // requant last (extension gemm_requant)
  EXPECT_EQ(l.usedBits(Opcode::SetReq), 38u);  // 4-bit alu_op, an ACC index, the immediate
  EXPECT_EQ(l.usedBits(Opcode::Alu), 128u);    // 4-bit alu_op, bias_clear last
  EXPECT_EQ(l.usedBits(Opcode::Finish), 7u);
}

TEST(IsaLayoutTest, FieldsDoNotOverlapAndFitIn128Bits) {
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout layout(c);
    std::map<Field, uint32_t> common_offsets;
    for (int op = 0; op < kNumOpcodes; ++op) {
      SCOPED_TRACE(c.name + " " + opcodeName(Opcode(op)));
      const auto& fields = layout.fields(Opcode(op));
      ASSERT_GE(fields.size(), 5u);
      // The decoder reads the opcode from bits 0..2 before it knows the layout.
      EXPECT_EQ(fields[0].field, Field::Opcode);
      EXPECT_EQ(fields[0].offset, 0u);
      EXPECT_EQ(fields[0].width, 3u);
      std::vector<bool> used(128, false);
      uint32_t end = 0, prev_offset = 0;
      for (size_t i = 0; i < fields.size(); ++i) {
        const BitField& f = fields[i];
        EXPECT_GT(f.width, 0u) << fieldName(f.field);
        ASSERT_LE(f.offset + f.width, 128u) << fieldName(f.field);
        if (i) {
          EXPECT_GT(f.offset, prev_offset) << "not in bit order: " << fieldName(f.field);
        }
        prev_offset = f.offset;
        for (uint32_t b = f.offset; b < f.offset + f.width; ++b) {
          EXPECT_FALSE(used[b]) << fieldName(f.field) << " overlaps at bit " << b;
          used[b] = true;
        }
        end = std::max(end, f.offset + f.width);
        // The flags sit at the same place in every opcode.
        if (i < 5) {
          auto [it, inserted] = common_offsets.emplace(f.field, f.offset);
          if (!inserted) {
            EXPECT_EQ(it->second, f.offset) << fieldName(f.field);
          }
        }
      }
      EXPECT_EQ(layout.usedBits(Opcode(op)), end);
    }
  }
}

TEST(IsaLayoutTest, WhyUnencodableIsEmptyForShippedConfigs) {
  for (const HwConfig& c : allTestConfigs()) EXPECT_EQ(IsaLayout::whyUnencodable(c), "") << c.name;
}

TEST(IsaLayoutTest, WhyUnencodableExplainsTooWideLayouts) {
  HwConfig c = loadConfig("pynq");
  c.alu_imm_bits = 17;  // 16 fill the 128 bits with bias_clear
  EXPECT_NE(IsaLayout::whyUnencodable(c).find("ALU needs 129 bits"), std::string::npos);
  c.alu_bias_clear = false;
  EXPECT_EQ(IsaLayout::whyUnencodable(c), "");
  c = loadConfig("pynq");
  c.acc_bytes = c.output_bytes = 64ull << 20;  // 2^20 entries each
  EXPECT_NE(IsaLayout::whyUnencodable(c), "");
}

// ---- encode / decode ----

TEST(IsaLayoutTest, RandomRoundTripEveryOpcodeEveryConfig) {
  std::mt19937_64 rng(0x5eed1234);
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout layout(c);
    for (int op = 0; op < kNumOpcodes; ++op) {
      if (!layout.hasOpcode(Opcode(op))) continue;
      SCOPED_TRACE(c.name + " " + opcodeName(Opcode(op)));
      // Over the trials, every bit of every field must have been seen as 0 and 1.
      EncodedInstruction ones{0, 0}, zeros{0, 0};
      int failures = 0;
      for (int trial = 0; trial < 3000 && failures < 5; ++trial) {
        Instruction insn = testing::randomInstruction(rng, layout, Opcode(op));
        EncodedInstruction bits;
        try {
          bits = layout.encode(insn);
        } catch (const Error& e) {
          ADD_FAILURE() << "encode threw: " << e.what();
          ++failures;
          continue;
        }
        ones[0] |= bits[0];
        ones[1] |= bits[1];
        zeros[0] |= ~bits[0];
        zeros[1] |= ~bits[1];
        // Independent expectation: each field's two's complement value at its offset.
        EncodedInstruction expected{0, 0};
        for (const BitField& f : layout.fields(Opcode(op)))
          setBits(expected, f.offset, f.width, uint64_t(getField(insn, f.field)) & lowMask(f.width));
        if (bits != expected) {
          ADD_FAILURE() << "encoding differs from the field layout, trial " << trial;
          ++failures;
        }
        Instruction back;
        try {
          back = layout.decode(bits);
        } catch (const Error& e) {
          ADD_FAILURE() << "decode threw: " << e.what();
          ++failures;
          continue;
        }
        if (back != insn) {
          for (int f = 0; f <= int(Field::Imm); ++f)
            EXPECT_EQ(getField(back, Field(f)), getField(insn, Field(f))) << fieldName(Field(f));
          ++failures;
        }
      }
      // Every bit of every field that can vary toggled (the opcode is fixed and
      // STORE's memory is always OUT).
      const uint32_t used = layout.usedBits(Opcode(op));
      for (const BitField& f : layout.fields(Opcode(op))) {
        // (DWGEMM's taps stay within the config's window: its upper bits are
        // 0; SETREQ's op is REQ or FREQ)
        if (f.field == Field::Opcode || f.field == Field::Taps ||
            (op == int(Opcode::Store) && f.field == Field::Memory) ||
            (op == int(Opcode::SetReq) && f.field == Field::AluOp))
          continue;
        for (uint32_t b = f.offset; b < f.offset + f.width; ++b) {
          bool one = (ones[b / 64] >> (b % 64)) & 1, zero = (zeros[b / 64] >> (b % 64)) & 1;
          EXPECT_TRUE(one && zero) << fieldName(f.field) << ": bit " << b << " never toggled";
        }
      }
      for (uint32_t b = used; b < 128; ++b) EXPECT_FALSE((ones[b / 64] >> (b % 64)) & 1) << "stray bit " << b;
    }
  }
}

TEST(IsaLayoutTest, ExtremeValuesRoundTrip) {
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout layout(c);
    for (int op = 0; op < kNumOpcodes; ++op) {
      if (!layout.hasOpcode(Opcode(op))) continue;
      SCOPED_TRACE(c.name + " " + opcodeName(Opcode(op)));
      for (int which = 0; which < 2; ++which) {
        Instruction insn;
        insn.opcode = Opcode(op);
        for (const BitField& f : layout.fields(Opcode(op))) {
          if (f.field == Field::Opcode) continue;
          int64_t v = which ? fieldMax(f) : fieldMin(f);
          if (f.field == Field::Memory) v = op == int(Opcode::Store) ? 4 : (which ? 5 : 0);
          if (f.field == Field::AluOp) v = which ? numAluOps(c) - 1 : 0;
          if (f.field == Field::AluOp && op == int(Opcode::SetReq))  // REQ or FREQ
            v = which ? numAluOps(c) - 1 : int(AluOp::Req);
          setField(insn, f.field, v);
        }
        if (insn.imm != 0 && op == int(Opcode::Alu)) insn.use_imm = true;  // imm is only encodable with use_imm
        if (insn.requant) insn.reset = false;                              // GEMM: the two exclude each other
        if (op == int(Opcode::DwGemm)) {                                   // the extremes DWGEMM accepts
          insn.taps = which ? c.depthwise_taps : 1;
          insn.stride = which ? 3 : 1;
        }
        EXPECT_EQ(layout.decode(layout.encode(insn)), insn);
      }
    }
  }
}

TEST(IsaLayoutTest, KnownEncodingsByHand) {
  IsaLayout l(loadConfig("pynq"));
  // FINISH with pop_prev and push_next: opcode 4 | bit 3 | bit 6.
  Instruction fin = makeFinish();
  fin.pop_prev = fin.push_next = true;
  EXPECT_EQ(l.encode(fin), (EncodedInstruction{0x4C, 0}));
  // LOAD INP sram=1: opcode 0, memory 2 at bit 7, sram_base at bit 10.
  EXPECT_EQ(l.encode(makeLoad(Memory::Input, 1, 0, 0, 0, 0)), (EncodedInstruction{(2u << 7) | (1u << 10), 0}));
  // y_size (bits 55..70) straddles the two words.
  Instruction y = makeLoad(Memory::Uop, 0, 0, 0xFFFF, 0, 0);
  EXPECT_EQ(l.encode(y), (EncodedInstruction{0x1FFull << 55, 0x7F}));
  // ALU ADD (op 2, bits 7..10) with use_imm (bit 11) and imm = -1 (bits 111..126 all ones).
  Instruction alu = makeAluImm(AluOp::Add, LoopNest{}, -1);
  alu.iter_out = alu.iter_in = 0;
  EncodedInstruction expected{3 | (2u << 7) | (1u << 11), 0xFFFFull << (111 - 64)};
  EXPECT_EQ(l.encode(alu), expected);
  EXPECT_EQ(l.decode(expected).imm, -1);
  // SETREQ REQ (op 9, bits 7..10) acc=3 (bits 11..21) imm=-1 (bits 22..37)
  // on pynq with gemm_requant.
  Instruction set;
  set.opcode = Opcode::SetReq;
  set.alu_op = AluOp::Req;
  set.sram_base = 3;
  set.imm = -1;
  const EncodedInstruction set_bits{6 | (9ull << 7) | (3ull << 11) | (0xFFFFull << 22), 0};
  EXPECT_EQ(l.encode(set), set_bits);
  EXPECT_EQ(l.decode(set_bits), set);
}

TEST(IsaLayoutTest, DecodeSingleBitsGiveFieldValues) {
  // A one-bit pattern inside a (non-enum) field decodes to that field = 1 << k
  // (a signed field's top bit to its most negative value); every other field is 0.
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout layout(c);
    for (int op = 0; op < kNumOpcodes; ++op) {
      // DWGEMM has no all-zero form (taps and stride are at least 1)
      if (!layout.hasOpcode(Opcode(op)) || op == int(Opcode::DwGemm)) continue;
      SCOPED_TRACE(c.name + " " + opcodeName(Opcode(op)));
      for (const BitField& f : layout.fields(Opcode(op))) {
        if (f.field == Field::Opcode || f.field == Field::Memory || f.field == Field::AluOp) continue;
        for (uint32_t k = 0; k < f.width; ++k) {
          EncodedInstruction w{0, 0};
          setBits(w, 0, 3, uint64_t(op));
          if (op == int(Opcode::Store)) setBits(w, findField(layout, Opcode::Store, Field::Memory)->offset, 3, 4);
          if (op == int(Opcode::SetReq))  // SETREQ takes REQ or FREQ
            setBits(w, findField(layout, Opcode::SetReq, Field::AluOp)->offset, 4, uint64_t(AluOp::Req));
          setBits(w, f.offset + k, 1, 1);
          if (f.field == Field::Imm && op == int(Opcode::Alu))
            setBits(w, findField(layout, Opcode::Alu, Field::UseImm)->offset, 1, 1);
          Instruction insn = layout.decode(w);
          int64_t expected = (f.is_signed && k == f.width - 1) ? -(int64_t(1) << k) : (int64_t(1) << k);
          EXPECT_EQ(getField(insn, f.field), expected) << fieldName(f.field) << " bit " << k;
        }
      }
    }
  }
}

TEST(IsaLayoutTest, EncodeOnePastTheMaximumNamesTheField) {
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout layout(c);
    for (int op = 0; op < kNumOpcodes; ++op) {
      if (!layout.hasOpcode(Opcode(op))) continue;
      for (const BitField& f : layout.fields(Opcode(op))) {
        // Flags are bools (cannot hold 2); an opcode past the field is not an
        // instruction kind at all. DWGEMM's taps are refused below the field's
        // maximum (DwgemmTapsAndStrideAreChecked).
        if (f.width == 1 || f.field == Field::Opcode || f.field == Field::Taps) continue;
        SCOPED_TRACE(c.name + " " + opcodeName(Opcode(op)) + " " + fieldName(f.field));
        std::vector<int64_t> bad = {fieldMax(f) + 1};
        if (f.is_signed) bad.push_back(fieldMin(f) - 1);
        for (int64_t v : bad) {
          Instruction insn;
          insn.opcode = Opcode(op);
          if (op == int(Opcode::Store)) insn.memory = Memory::Output;
          if (op == int(Opcode::DwGemm)) insn.taps = insn.stride = 1;
          if (op == int(Opcode::SetReq)) insn.alu_op = AluOp::Req;
          insn.use_imm = f.field == Field::Imm && op == int(Opcode::Alu);
          setField(insn, f.field, v);
          if (getField(insn, f.field) != v) continue;  // not representable in the struct (32-bit imm)
          const std::string msg = errorOf([&] { layout.encode(insn, "instruction 7"); });
          EXPECT_EQ(msg.rfind("instruction 7: ", 0), 0u) << msg;
          EXPECT_NE(msg.find(std::string("field ") + fieldName(f.field)), std::string::npos) << msg;
          EXPECT_NE(msg.find("does not fit in " + std::to_string(f.width)), std::string::npos) << msg;
          // The maximum itself is fine.
          setField(insn, f.field, v > 0 ? fieldMax(f) : fieldMin(f));
          if (f.field == Field::Memory) insn.memory = op == int(Opcode::Store) ? Memory::Output : Memory::Acc8;
          if (f.field == Field::AluOp) insn.alu_op = op == int(Opcode::SetReq) ? AluOp::Req : AluOp::Mov;
          EXPECT_NO_THROW(layout.encode(insn));
        }
      }
    }
  }
}

TEST(IsaLayoutTest, EncodeRejectsIllegalEnumValues) {
  IsaLayout l(loadConfig("pynq"));
  Instruction load = makeLoad(Memory::Output, 0, 0, 1, 1, 1);
  EXPECT_NE(errorOf([&] { l.encode(load); }).find("LOAD with invalid memory 4"), std::string::npos);
  load.memory = Memory(6);
  EXPECT_NE(errorOf([&] { l.encode(load); }).find("invalid memory 6"), std::string::npos);
  Instruction store = makeStore(0, 0, 1, 1, 1);
  EXPECT_NO_THROW(l.encode(store));
  for (Memory m : {Memory::Uop, Memory::Weight, Memory::Acc, Memory::Acc8}) {
    store.memory = m;
    EXPECT_NE(errorOf([&] { l.encode(store); }).find("STORE with invalid memory"), std::string::npos);
  }
  // STORE INP: pynq has inp_writeback, tiny does not.
  store.memory = Memory::Input;
  EXPECT_NO_THROW(l.encode(store));
  EXPECT_NE(errorOf([&] { IsaLayout(loadConfig("tiny")).encode(store); }).find("STORE INP needs the inp_writeback"),
            std::string::npos);
  Instruction alu = makeAlu(AluOp::Add, LoopNest{});
  alu.alu_op = AluOp(kNumAluOps);
  EXPECT_NE(errorOf([&] { l.encode(alu); }).find("unknown ALU op " + std::to_string(kNumAluOps)), std::string::npos);
}

TEST(IsaLayoutTest, EncodeRejectsInvalidOpcode) {
  IsaLayout l(loadConfig("pynq"));
  Instruction insn;
  setField(insn, Field::Opcode, 7);
  EXPECT_NE(errorOf([&] { l.encode(insn); }).find("opcode"), std::string::npos);
}

TEST(IsaLayoutTest, DecodeRejectsUnknownOpcodes) {
  IsaLayout l(loadConfig("pynq"));
  const std::string msg = errorOf([&] { l.decode({7, 0}, "instruction 9"); });
  EXPECT_NE(msg.find("instruction 9: unknown opcode 7"), std::string::npos) << msg;
}

// A 1x16x16 config with the given extensions (a JSON object's members).
std::string requantTestConfig(const std::string& extensions) {
  return R"({
    "name": "rq", "target": {"board": "b", "part": "p", "clock_mhz": 100},
    "gemm": {"batch": 1, "block_in": 16, "block_out": 16},
    "data_bits": {"input": 8, "weight": 8, "accumulator": 32, "output": 8},
    "buffers_kib": {"uop": 16, "input": 32, "weight": 128, "accumulator": 64, "output": 16},
    "axi": {"data_bits": 64}, "queues": {"command_depth": 16, "token_depth": 8},
    "isa": {"dram_addr_bits": 32, "xfer_size_bits": 16, "pad_bits": 4, "loop_iter_bits": 14, "alu_imm_bits": 16},
    "extensions": {)" +
         extensions + "}}";
}

// gemm_requant: SETREQ and the GEMM flag exist only with the extension, SETREQ
// takes REQ or FREQ only, and requant excludes reset.
TEST(IsaLayoutTest, GemmRequantNeedsItsExtension) {
  auto withExtension = [&](bool on) {
    return parseConfig(requantTestConfig(std::string(R"("fused_requant": true, "alu_bias_clear": true)") +
                                         (on ? R"(, "gemm_requant": true)" : "")),
                       "rq");
  };
  const IsaLayout with(withExtension(true)), without(withExtension(false));
  Instruction set;
  set.opcode = Opcode::SetReq;
  set.alu_op = AluOp::Req;
  set.sram_base = 5;
  set.imm = 0x7f00;
  EXPECT_EQ(with.decode(with.encode(set)), set);
  EXPECT_NE(errorOf([&] { without.encode(set); }).find("SETREQ needs the gemm_requant extension"), std::string::npos);
  EXPECT_NE(errorOf([&] {
              without.decode(with.encode(set), "instruction 3");
            }).find("instruction 3: SETREQ needs the gemm_requant extension"),
            std::string::npos);
  set.alu_op = AluOp::Mul;
  EXPECT_NE(errorOf([&] { with.encode(set); }).find("SETREQ op MUL must be REQ or FREQ"), std::string::npos);
  set.alu_op = AluOp::FReq;  // the config has no float_requant
  EXPECT_NE(errorOf([&] { with.encode(set); }).find("float_requant"), std::string::npos);

  Instruction gemm = makeGemm(LoopNest{});
  gemm.requant = true;
  EXPECT_EQ(with.decode(with.encode(gemm)), gemm);
  EXPECT_NE(errorOf([&] { without.encode(gemm); }).find("GEMM requant needs the gemm_requant extension"),
            std::string::npos);
  gemm.reset = true;
  EXPECT_NE(errorOf([&] { with.encode(gemm); }).find("requant and reset exclude each other"), std::string::npos);
  // The flag is GEMM's last bit; without the extension GEMM keeps its encoding.
  EXPECT_EQ(with.usedBits(Opcode::Gemm), without.usedBits(Opcode::Gemm) + 1);
  EXPECT_EQ(with.fields(Opcode::Gemm).back().field, Field::Requant);
  EXPECT_TRUE(with.hasOpcode(Opcode::SetReq));
  EXPECT_FALSE(without.hasOpcode(Opcode::SetReq));
}

TEST(IsaLayoutTest, GemmRequantNeedsFusedRequantAndBiasClear) {
  const std::string json = requantTestConfig(R"("fused_requant": true, "gemm_requant": true)");
  const std::string msg = errorOf([&] { parseConfig(json, "rq.json"); });
  EXPECT_NE(msg.find("extensions.gemm_requant"), std::string::npos) << msg;
  EXPECT_NE(msg.find("alu_bias_clear"), std::string::npos) << msg;
}

TEST(IsaLayoutTest, DecodeRejectsInvalidMemories) {
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout l(c);
    const uint32_t mem_off = findField(l, Opcode::Load, Field::Memory)->offset;
    ASSERT_EQ(findField(l, Opcode::Store, Field::Memory)->offset, mem_off);
    for (uint64_t m = 0; m < 8; ++m) {
      EncodedInstruction load{0, 0}, store{0, 0};
      setBits(load, 0, 3, uint64_t(Opcode::Load));
      setBits(load, mem_off, 3, m);
      setBits(store, 0, 3, uint64_t(Opcode::Store));
      setBits(store, mem_off, 3, m);
      const bool load_ok = m <= 5 && m != 4;
      if (load_ok) {
        EXPECT_EQ(l.decode(load).memory, Memory(m));
      } else {
        EXPECT_NE(errorOf([&] { l.decode(load); }).find("LOAD with invalid memory " + std::to_string(m)),
                  std::string::npos);
      }
      if (m == 4) {
        EXPECT_EQ(l.decode(store).memory, Memory::Output);
      } else if (m == 2 && c.inp_writeback) {
        EXPECT_EQ(l.decode(store).memory, Memory::Input);  // STORE INP
      } else if (m == 2) {
        EXPECT_NE(errorOf([&] { l.decode(store); }).find("STORE INP needs the inp_writeback extension"),
                  std::string::npos);
      } else {
        EXPECT_NE(errorOf([&] { l.decode(store); }).find("STORE with invalid memory " + std::to_string(m)),
                  std::string::npos);
      }
    }
  }
}

TEST(IsaLayoutTest, DecodeRejectsUnknownAluOp) {
  IsaLayout l(loadConfig("zcu104"));  // every op the ISA defines (fused_requant and float_requant)
  const BitField* f = findField(l, Opcode::Alu, Field::AluOp);
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->width, 4u);
  for (uint64_t a = 0; a < 16; ++a) {
    EncodedInstruction w{0, 0};
    setBits(w, 0, 3, uint64_t(Opcode::Alu));
    setBits(w, f->offset, f->width, a);
    if (a < uint64_t(kNumAluOps))
      EXPECT_EQ(l.decode(w).alu_op, AluOp(a));
    else
      EXPECT_NE(errorOf([&] { l.decode(w); }).find("unknown ALU op " + std::to_string(a)), std::string::npos);
  }
}

TEST(IsaLayoutTest, DecodeRejectsStrayBits) {
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout l(c);
    for (int op = 0; op < kNumOpcodes; ++op) {
      if (!l.hasOpcode(Opcode(op))) continue;
      SCOPED_TRACE(c.name + " " + opcodeName(Opcode(op)));
      EncodedInstruction base{0, 0};
      setBits(base, 0, 3, uint64_t(op));
      if (op == int(Opcode::Store)) setBits(base, findField(l, Opcode::Store, Field::Memory)->offset, 3, 4);
      if (op == int(Opcode::DwGemm)) {
        setBits(base, findField(l, Opcode::DwGemm, Field::Taps)->offset, 4, 1);
        setBits(base, findField(l, Opcode::DwGemm, Field::Stride)->offset, 2, 1);
      }
      if (op == int(Opcode::SetReq))
        setBits(base, findField(l, Opcode::SetReq, Field::AluOp)->offset, 4, uint64_t(AluOp::Req));
      ASSERT_NO_THROW(l.decode(base));
      for (uint32_t b = l.usedBits(Opcode(op)); b < 128; ++b) {
        EncodedInstruction w = base;
        setBits(w, b, 1, 1);
        const std::string msg = errorOf([&] { l.decode(w, "instruction 2"); });
        EXPECT_NE(msg.find("bits set outside its fields"), std::string::npos) << "bit " << b << ": " << msg;
        EXPECT_EQ(msg.rfind("instruction 2: ", 0), 0u) << msg;
      }
    }
  }
}

// ---- micro-ops ----

TEST(IsaLayoutTest, MicroOpWidths) {
  IsaLayout p(loadConfig("pynq"));
  EXPECT_EQ(p.uopDstBits(), 11u);
  EXPECT_EQ(p.uopSrcBits(), 12u);  // max(input 4096, accumulator 2048)
  EXPECT_EQ(p.uopWgtBits(), 9u);
  IsaLayout t(loadConfig("tiny"));
  EXPECT_EQ(t.uopDstBits(), 6u);  // accumulator: 64 entries
  EXPECT_EQ(t.uopSrcBits(), 7u);  // max(input 128, accumulator 64)
  EXPECT_EQ(t.uopWgtBits(), 6u);
}

TEST(IsaLayoutTest, MicroOpPackingByHand) {
  IsaLayout p(loadConfig("pynq"));
  EXPECT_EQ(p.encodeUop({1, 2, 3}), 1u | (2u << 11) | (3u << 23));
  EXPECT_EQ(p.encodeUop({2047, 4095, 511}), 0xFFFFFFFFu);
  EXPECT_EQ(p.decodeUop(0xFFFFFFFFu), (Uop{2047, 4095, 511}));
  IsaLayout t(loadConfig("tiny"));
  EXPECT_EQ(t.encodeUop({5, 100, 33}), 5u | (100u << 6) | (33u << 13));
}

TEST(IsaLayoutTest, MicroOpRandomRoundTrip) {
  std::mt19937_64 rng(77);
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout l(c);
    ASSERT_LE(l.uopDstBits() + l.uopSrcBits() + l.uopWgtBits(), 32u) << c.name;
    for (int i = 0; i < 2000; ++i) {
      Uop u{uint32_t(rng() & lowMask(l.uopDstBits())), uint32_t(rng() & lowMask(l.uopSrcBits())),
            uint32_t(rng() & lowMask(l.uopWgtBits()))};
      uint32_t bits = l.encodeUop(u);
      EXPECT_EQ(bits, u.dst | (u.src << l.uopDstBits()) | (u.wgt << (l.uopDstBits() + l.uopSrcBits())));
      ASSERT_EQ(l.decodeUop(bits), u) << c.name;
    }
  }
}

TEST(IsaLayoutTest, MicroOpOverflowNamesTheIndex) {
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout l(c);
    struct Case {
      Uop uop;
      const char* name;
      uint32_t bits;
    };
    const Case cases[] = {
        {{uint32_t(1) << l.uopDstBits(), 0, 0}, "dst", l.uopDstBits()},
        {{0, uint32_t(1) << l.uopSrcBits(), 0}, "src", l.uopSrcBits()},
        {{0, 0, uint32_t(1) << l.uopWgtBits()}, "wgt", l.uopWgtBits()},
    };
    for (const Case& k : cases) {
      const std::string msg = errorOf([&] { l.encodeUop(k.uop, "micro-op 4"); });
      EXPECT_EQ(msg.rfind("micro-op 4: ", 0), 0u) << msg;
      EXPECT_NE(msg.find(std::string("micro-op ") + k.name + " index"), std::string::npos) << msg;
      EXPECT_NE(msg.find("does not fit in " + std::to_string(k.bits) + " bits"), std::string::npos) << msg;
    }
  }
}

// DWGEMM exists only with the depthwise extension, with taps in [1, the
// config's depthwise_taps] and a nonzero stride; the errors say so.
TEST(IsaLayoutTest, DwgemmTapsAndStrideAreChecked) {
  const HwConfig pynq = loadConfig("pynq");
  ASSERT_EQ(pynq.depthwise_taps, 5u);
  IsaLayout l(pynq);
  Instruction dw = makeDwGemm(LoopNest{}, 5, 2);
  EXPECT_EQ(l.decode(l.encode(dw)), dw);
  dw.taps = 6;
  EXPECT_NE(errorOf([&] { l.encode(dw, "instruction 3"); }).find("DWGEMM taps = 6 must be in [1, 5]"),
            std::string::npos);
  dw.taps = 0;
  EXPECT_NE(errorOf([&] { l.encode(dw); }).find("DWGEMM taps = 0"), std::string::npos);
  dw.taps = 1;
  dw.stride = 0;
  EXPECT_NE(errorOf([&] { l.encode(dw); }).find("stride = 0 must be at least 1"), std::string::npos);
  IsaLayout t(loadConfig("tiny"));
  EXPECT_FALSE(t.hasOpcode(Opcode::DwGemm));
  dw.stride = 1;
  EXPECT_NE(errorOf([&] { t.encode(dw); }).find("DWGEMM needs the depthwise_taps extension, which config 'tiny'"),
            std::string::npos);
  EncodedInstruction raw{uint64_t(Opcode::DwGemm), 0};
  EXPECT_NE(errorOf([&] { l.decode(raw); }).find("DWGEMM taps = 0"), std::string::npos);
}

// ---- names and field accessors ----

TEST(IsaTest, Names) {
  const char* ops[] = {"LOAD", "STORE", "GEMM", "ALU", "FINISH", "DWGEMM", "SETREQ"};
  for (int i = 0; i < kNumOpcodes; ++i) EXPECT_STREQ(opcodeName(Opcode(i)), ops[i]);
  const char* alus[] = {"MIN", "MAX", "ADD", "MUL", "SHR", "RSHR", "MOV", "CLIP", "MULSHR", "REQ", "FREQ"};
  static_assert(std::size(alus) == kNumAluOps);
  for (int i = 0; i < kNumAluOps; ++i) EXPECT_STREQ(aluOpName(AluOp(i)), alus[i]);
  EXPECT_STREQ(moduleName(Module::Load), "load");
  EXPECT_STREQ(moduleName(Module::Compute), "compute");
  EXPECT_STREQ(moduleName(Module::Store), "store");
  EXPECT_STREQ(fieldName(Field::Opcode), "opcode");
  EXPECT_STREQ(fieldName(Field::SramBase), "sram_base");
  EXPECT_STREQ(fieldName(Field::WgtFactorIn), "wgt_factor_in");
  EXPECT_STREQ(fieldName(Field::Imm), "imm");
}

TEST(IsaTest, ModuleRouting) {
  EXPECT_EQ(moduleOf(makeLoad(Memory::Weight, 0, 0, 1, 1, 1)), Module::Load);
  EXPECT_EQ(moduleOf(makeLoad(Memory::Input, 0, 0, 1, 1, 1)), Module::Load);
  EXPECT_EQ(moduleOf(makeLoad(Memory::Uop, 0, 0, 1, 1, 1)), Module::Compute);
  EXPECT_EQ(moduleOf(makeLoad(Memory::Acc, 0, 0, 1, 1, 1)), Module::Compute);
  EXPECT_EQ(moduleOf(makeLoad(Memory::Acc8, 0, 0, 1, 1, 1)), Module::Compute);
  EXPECT_EQ(moduleOf(makeStore(0, 0, 1, 1, 1)), Module::Store);
  EXPECT_EQ(moduleOf(makeGemm(LoopNest{})), Module::Compute);
  EXPECT_EQ(moduleOf(makeAlu(AluOp::Add, LoopNest{})), Module::Compute);
  EXPECT_EQ(moduleOf(makeFinish()), Module::Compute);
}

TEST(IsaTest, EqualityComparesEveryField) {
  const Instruction base = makeFinish();
  for (int f = 1; f <= int(Field::Imm); ++f) {  // opcode aside
    Instruction other = base;
    setField(other, Field(f), 1);
    EXPECT_NE(other, base) << fieldName(Field(f));
    EXPECT_EQ(getField(other, Field(f)), 1) << fieldName(Field(f));
  }
  Instruction neg;
  setField(neg, Field::Imm, -5);
  EXPECT_EQ(neg.imm, -5);
  EXPECT_EQ(getField(neg, Field::Imm), -5);
  setField(neg, Field::DramBase, int64_t(1) << 39);
  EXPECT_EQ(neg.dram_base, uint64_t(1) << 39);
}

}  // namespace
}  // namespace vdla::hw
