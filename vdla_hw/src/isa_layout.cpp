#include "vdla/hw/isa_layout.h"

#include <algorithm>

#include "vdla/hw/error.h"

namespace vdla::hw {
namespace {

constexpr uint32_t kOpcodeBits = 3;
constexpr uint32_t kMemoryBits = 3;
constexpr uint32_t kAluOpBits = 4;  // 11 ops
constexpr uint32_t kInstructionBits = 128;
constexpr uint32_t kUopBits = 32;
constexpr uint32_t kTapsBits = 4;    // DWGEMM taps, 1 .. kMaxDepthwiseTaps
constexpr uint32_t kStrideBits = 2;  // DWGEMM output stride, 1 .. 3

uint32_t log2Ceil(uint32_t x) {
  uint32_t bits = 0;
  while ((uint64_t(1) << bits) < x) ++bits;
  return bits;
}

struct FieldSpec {
  Field field;
  uint32_t width;
  bool is_signed = false;
};

// The field order of every opcode. Offsets are assigned by accumulating widths,
// so the layout is a pure function of the config.
std::vector<FieldSpec> fieldSpecs(const HwConfig& c, Opcode op) {
  std::vector<FieldSpec> specs = {
      {Field::Opcode, kOpcodeBits}, {Field::PopPrev, 1},  {Field::PopNext, 1},
      {Field::PushPrev, 1},         {Field::PushNext, 1},
  };
  const uint32_t uop_bits = c.indexBits(Memory::Uop);
  const uint32_t acc_bits = c.indexBits(Memory::Acc);
  const uint32_t inp_bits = c.indexBits(Memory::Input);
  const uint32_t wgt_bits = c.indexBits(Memory::Weight);
  const uint32_t sram_bits = std::max({uop_bits, acc_bits, inp_bits, wgt_bits, c.indexBits(Memory::Output)});
  // Range ends are exclusive, so they need one bit more than a begin index.
  const uint32_t uop_end_bits = c.indexBits(Memory::Uop) + 1;
  switch (op) {
    case Opcode::Load:
    case Opcode::Store:
      specs.insert(specs.end(), {{Field::Memory, kMemoryBits},
                                 {Field::SramBase, sram_bits},
                                 {Field::DramBase, c.dram_addr_bits},
                                 {Field::YSize, c.xfer_size_bits},
                                 {Field::XSize, c.xfer_size_bits},
                                 {Field::XStride, c.xfer_size_bits},
                                 {Field::YPadTop, c.pad_bits},
                                 {Field::YPadBottom, c.pad_bits},
                                 {Field::XPadLeft, c.pad_bits},
                                 {Field::XPadRight, c.pad_bits}});
      break;
    case Opcode::Gemm:
      specs.insert(specs.end(), {{Field::Reset, 1},
                                 {Field::UopBegin, uop_bits},
                                 {Field::UopEnd, uop_end_bits},
                                 {Field::IterOut, c.loop_iter_bits},
                                 {Field::IterIn, c.loop_iter_bits},
                                 {Field::DstFactorOut, acc_bits},
                                 {Field::DstFactorIn, acc_bits},
                                 {Field::SrcFactorOut, inp_bits},
                                 {Field::SrcFactorIn, inp_bits},
                                 {Field::WgtFactorOut, wgt_bits},
                                 {Field::WgtFactorIn, wgt_bits}});
      // Last, so that without the extension the encoding is the base one.
      if (c.gemm_requant) specs.push_back({Field::Requant, 1});
      break;
    case Opcode::DwGemm:
      // GEMM's loop nest without the weight's inner factor (a row's inputs
      // share its weights), with the window's taps and the output stride.
      specs.insert(specs.end(), {{Field::UopBegin, uop_bits},
                                 {Field::UopEnd, uop_end_bits},
                                 {Field::IterOut, c.loop_iter_bits},
                                 {Field::IterIn, c.loop_iter_bits},
                                 {Field::DstFactorOut, acc_bits},
                                 {Field::DstFactorIn, acc_bits},
                                 {Field::SrcFactorOut, inp_bits},
                                 {Field::SrcFactorIn, inp_bits},
                                 {Field::WgtFactorOut, wgt_bits},
                                 {Field::Taps, kTapsBits},
                                 {Field::Stride, kStrideBits}});
      // Last, and only where the config has DWGEMM on an array whose
      // block_in exceeds block_out, so that square arrays keep the encoding
      // they had before it.
      if (c.depthwise_taps && c.depthwiseLaneBlocks() > 1)
        specs.push_back({Field::LaneBlock, log2Ceil(c.depthwiseLaneBlocks())});
      // Then requant, likewise only with its extension (gemm_requant).
      if (c.depthwise_taps && c.gemm_requant) specs.push_back({Field::Requant, 1});
      break;
    case Opcode::Alu:
      specs.insert(specs.end(), {{Field::AluOp, kAluOpBits},
                                 {Field::UseImm, 1},
                                 {Field::UopBegin, uop_bits},
                                 {Field::UopEnd, uop_end_bits},
                                 {Field::IterOut, c.loop_iter_bits},
                                 {Field::IterIn, c.loop_iter_bits},
                                 {Field::DstFactorOut, acc_bits},
                                 {Field::DstFactorIn, acc_bits},
                                 {Field::SrcFactorOut, acc_bits},
                                 {Field::SrcFactorIn, acc_bits},
                                 {Field::Imm, c.alu_imm_bits, true}});
      // Last, so that without the extension the encoding is the base one.
      if (c.alu_bias_clear) specs.push_back({Field::BiasClear, 1});
      break;
    case Opcode::SetReq:
      specs.insert(specs.end(),
                   {{Field::AluOp, kAluOpBits}, {Field::SramBase, acc_bits}, {Field::Imm, c.alu_imm_bits, true}});
      break;
    case Opcode::Finish: break;
  }
  return specs;
}

uint64_t mask(uint32_t width) { return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1; }

void putBits(EncodedInstruction& w, uint32_t offset, uint32_t width, uint64_t value) {
  for (uint32_t i = 0; i < width;) {
    uint32_t bit = offset + i, word = bit / 64, shift = bit % 64;
    uint32_t take = std::min(width - i, 64 - shift);
    w[word] |= ((value >> i) & mask(take)) << shift;
    i += take;
  }
}

uint64_t takeBits(const EncodedInstruction& w, uint32_t offset, uint32_t width) {
  uint64_t value = 0;
  for (uint32_t i = 0; i < width;) {
    uint32_t bit = offset + i, word = bit / 64, shift = bit % 64;
    uint32_t take = std::min(width - i, 64 - shift);
    value |= ((w[word] >> shift) & mask(take)) << i;
    i += take;
  }
  return value;
}

std::string prefix(const std::string& where) { return where.empty() ? "" : where + ": "; }

// Fields that hold an enumeration accept fewer values than their width allows.
// Returns why `raw` is not a legal value of `field` for `op`, or "" if it is.
std::string illegalEnumValue(Opcode op, Field field, uint64_t raw) {
  if (field == Field::Memory) {
    // STORE INP exists only with inp_writeback (whyInconsistent says so).
    bool ok = (op == Opcode::Store) ? (raw == uint64_t(Memory::Output) || raw == uint64_t(Memory::Input))
                                    : (raw < kNumMemoryIds && raw != uint64_t(Memory::Output));
    if (!ok)
      return std::string(opcodeName(op)) + " with invalid memory " + std::to_string(raw) +
             (op == Opcode::Store ? " (STORE takes OUT, or INP with inp_writeback)"
                                  : " (LOAD takes UOP, WGT, INP, ACC or ACC8)");
  }
  if (field == Field::AluOp && raw >= kNumAluOps) return "ALU with unknown ALU op " + std::to_string(raw);
  return "";
}

}  // namespace

const char* fieldName(Field f) {
  switch (f) {
#define VDLA_ISA_X(name, member) \
  case Field::name: return #member;
    VDLA_ISA_FIELDS(VDLA_ISA_X)
#undef VDLA_ISA_X
  }
  return "?";
}

IsaLayout::IsaLayout(const HwConfig& cfg) {
  for (int op = 0; op < kNumOpcodes; ++op) {
    uint32_t offset = 0;
    for (const FieldSpec& s : fieldSpecs(cfg, Opcode(op))) {
      fields_[op].push_back({s.field, offset, s.width, s.is_signed});
      offset += s.width;
    }
  }
  uop_dst_bits_ = cfg.indexBits(Memory::Acc);
  uop_src_bits_ = std::max(cfg.indexBits(Memory::Input), cfg.indexBits(Memory::Acc));
  uop_wgt_bits_ = cfg.indexBits(Memory::Weight);
  num_alu_ops_ = hw::numAluOps(cfg);
  depthwise_taps_ = cfg.depthwise_taps;
  lane_blocks_ = cfg.depthwiseLaneBlocks();
  alu_bias_clear_ = cfg.alu_bias_clear;
  gemm_requant_ = cfg.gemm_requant;
  inp_writeback_ = cfg.inp_writeback;
  config_name_ = cfg.name;
}

uint32_t IsaLayout::usedBits(Opcode op) const {
  const auto& f = fields_[int(op)];
  return f.empty() ? 0 : f.back().offset + f.back().width;
}

std::string IsaLayout::whyUnencodable(const HwConfig& cfg) {
  IsaLayout layout(cfg);
  for (int op = 0; op < kNumOpcodes; ++op)
    if (layout.hasOpcode(Opcode(op)) && layout.usedBits(Opcode(op)) > kInstructionBits)
      return std::string(opcodeName(Opcode(op))) + " needs " + std::to_string(layout.usedBits(Opcode(op))) +
             " bits but instructions are " + std::to_string(kInstructionBits) +
             " bits; reduce buffer depths or ISA field widths";
  uint32_t uop = layout.uop_dst_bits_ + layout.uop_src_bits_ + layout.uop_wgt_bits_;
  if (uop > kUopBits)
    return "a micro-op needs " + std::to_string(uop) + " bits (acc " + std::to_string(layout.uop_dst_bits_) +
           " + input/acc " + std::to_string(layout.uop_src_bits_) + " + weight " +
           std::to_string(layout.uop_wgt_bits_) + ") but micro-ops are 32 bits; reduce buffer depths";
  return "";
}

std::string IsaLayout::whyInvalidValue(Opcode op, const BitField& f, int64_t v) {
  const bool fits = f.is_signed ? (v >= -(int64_t(1) << (f.width - 1)) && v < (int64_t(1) << (f.width - 1)))
                                : (v >= 0 && uint64_t(v) <= mask(f.width));
  if (!fits)
    return std::string(opcodeName(op)) + " field " + fieldName(f.field) + " = " + std::to_string(v) +
           " does not fit in " + std::to_string(f.width) + (f.is_signed ? " signed" : "") + " bits";
  return illegalEnumValue(op, f.field, uint64_t(v));
}

namespace {

// Rules that span fields: an ALU without use_imm ignores imm, so imm must be
// zero there; otherwise two encodings would mean the same instruction and the
// text form could not express one of them.
// REQ and FREQ are the exceptions: their imm always holds the clip bounds
// or the zero point. An op the
// config does not have is refused like an unknown one.
std::string whyInconsistent(const Instruction& insn, int num_alu_ops, uint32_t depthwise_taps, uint32_t lane_blocks,
                            bool alu_bias_clear, bool gemm_requant, bool inp_writeback, const std::string& config) {
  if (insn.opcode == Opcode::Store && insn.memory == Memory::Input && !inp_writeback)
    return "STORE INP needs the inp_writeback extension, which config '" + config + "' does not enable";
  if (insn.opcode == Opcode::SetReq) {
    if (!gemm_requant) return "SETREQ needs the gemm_requant extension, which config '" + config + "' does not enable";
    if (insn.alu_op != AluOp::Req && insn.alu_op != AluOp::FReq)
      return std::string("SETREQ op ") + aluOpName(insn.alu_op) + " must be REQ or FREQ";
    if (int(insn.alu_op) >= num_alu_ops)
      return "SETREQ op FREQ needs the float_requant extension, which config '" + config + "' does not enable";
    return "";
  }
  if (insn.opcode == Opcode::Gemm) {
    if (insn.requant && !gemm_requant)
      return "GEMM requant needs the gemm_requant extension, which config '" + config + "' does not enable";
    if (insn.requant && insn.reset) return "GEMM requant and reset exclude each other";
    return "";
  }
  if (insn.opcode == Opcode::DwGemm) {
    if (!depthwise_taps)
      return "DWGEMM needs the depthwise_taps extension, which config '" + config + "' does not enable";
    if (insn.taps < 1 || insn.taps > depthwise_taps)
      return "DWGEMM taps = " + std::to_string(insn.taps) + " must be in [1, " + std::to_string(depthwise_taps) +
             "] (the config's depthwise_taps)";
    if (insn.stride < 1) return "DWGEMM stride = 0 must be at least 1";
    if (insn.lane_block >= lane_blocks)
      return "DWGEMM lane_block = " + std::to_string(insn.lane_block) + " must be below " +
             std::to_string(lane_blocks) + " (block_in / block_out of config '" + config + "')";
    if (insn.requant && !gemm_requant)
      return "DWGEMM requant needs the gemm_requant extension, which config '" + config + "' does not enable";
    return "";
  }
  if (insn.opcode != Opcode::Alu) return "";
  if (int(insn.alu_op) >= num_alu_ops)
    return std::string("ALU op ") + aluOpName(insn.alu_op) + " needs the " +
           (insn.alu_op == AluOp::FReq ? "float_requant" : "fused_requant") + " extension, which config '" + config +
           "' does not enable";
  if (insn.bias_clear && !alu_bias_clear)
    return "ALU bias_clear needs the alu_bias_clear extension, which config '" + config + "' does not enable";
  if (!insn.use_imm && insn.imm != 0 && insn.alu_op != AluOp::Req && insn.alu_op != AluOp::FReq)
    return "ALU imm = " + std::to_string(insn.imm) + " must be 0 when use_imm is 0";
  return "";
}

}  // namespace

EncodedInstruction IsaLayout::encode(const Instruction& insn, const std::string& where) const {
  if (int(insn.opcode) >= kNumOpcodes)
    throw Error(prefix(where) + "unknown opcode " + std::to_string(int(insn.opcode)));
  EncodedInstruction bits{0, 0};
  for (const BitField& f : fields_[int(insn.opcode)]) {
    const int64_t v = getField(insn, f.field);
    std::string why = whyInvalidValue(insn.opcode, f, v);
    if (!why.empty()) throw Error(prefix(where) + why);
    putBits(bits, f.offset, f.width, uint64_t(v) & mask(f.width));
  }
  std::string why = whyInconsistent(insn, num_alu_ops_, depthwise_taps_, lane_blocks_, alu_bias_clear_, gemm_requant_,
                                    inp_writeback_, config_name_);
  if (!why.empty()) throw Error(prefix(where) + why);
  return bits;
}

Instruction IsaLayout::decode(const EncodedInstruction& bits, const std::string& where) const {
  uint64_t opcode = takeBits(bits, 0, kOpcodeBits);
  if (opcode >= kNumOpcodes) throw Error(prefix(where) + "unknown opcode " + std::to_string(opcode));
  Instruction insn;
  EncodedInstruction seen{0, 0};
  for (const BitField& f : fields_[opcode]) {
    uint64_t raw = takeBits(bits, f.offset, f.width);
    putBits(seen, f.offset, f.width, raw);
    int64_t v = int64_t(raw);
    if (f.is_signed && f.width < 64 && (raw >> (f.width - 1)) & 1) v = int64_t(raw | ~mask(f.width));
    std::string illegal = illegalEnumValue(insn.opcode, f.field, raw);
    if (!illegal.empty()) throw Error(prefix(where) + illegal);
    setField(insn, f.field, v);
  }
  if (seen != bits)
    throw Error(prefix(where) + opcodeName(insn.opcode) + " has bits set outside its fields (corrupt instruction?)");
  std::string why = whyInconsistent(insn, num_alu_ops_, depthwise_taps_, lane_blocks_, alu_bias_clear_, gemm_requant_,
                                    inp_writeback_, config_name_);
  if (!why.empty()) throw Error(prefix(where) + why);
  return insn;
}

uint32_t IsaLayout::encodeUop(const Uop& uop, const std::string& where) const {
  auto check = [&](uint32_t v, uint32_t width, const char* name) {
    if (v > mask(width))
      throw Error(prefix(where) + "micro-op " + name + " index " + std::to_string(v) + " does not fit in " +
                  std::to_string(width) + " bits");
  };
  check(uop.dst, uop_dst_bits_, "dst");
  check(uop.src, uop_src_bits_, "src");
  check(uop.wgt, uop_wgt_bits_, "wgt");
  return uop.dst | (uop.src << uop_dst_bits_) | (uop.wgt << (uop_dst_bits_ + uop_src_bits_));
}

Uop IsaLayout::decodeUop(uint32_t bits) const {
  Uop u;
  u.dst = uint32_t(bits & mask(uop_dst_bits_));
  u.src = uint32_t((bits >> uop_dst_bits_) & mask(uop_src_bits_));
  u.wgt = uint32_t((bits >> (uop_dst_bits_ + uop_src_bits_)) & mask(uop_wgt_bits_));
  return u;
}

int64_t getField(const Instruction& i, Field f) {
  switch (f) {
#define VDLA_ISA_X(name, member) \
  case Field::name: return int64_t(i.member);
    VDLA_ISA_FIELDS(VDLA_ISA_X)
#undef VDLA_ISA_X
  }
  return 0;
}

void setField(Instruction& i, Field f, int64_t v) {
  switch (f) {
#define VDLA_ISA_X(name, member) \
  case Field::name: i.member = decltype(i.member)(v); break;
    VDLA_ISA_FIELDS(VDLA_ISA_X)
#undef VDLA_ISA_X
  }
}

}  // namespace vdla::hw
