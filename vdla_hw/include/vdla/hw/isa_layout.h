#pragma once
// Bit layout of instructions and micro-ops for one HwConfig. Field widths follow
// from the config (SRAM index widths from buffer depths, the rest from its "isa"
// section); packing is explicit shifts and masks, independent of the compiler.
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"
#include "vdla/hw/isa_fields.h"

namespace vdla::hw {

enum class Field : uint8_t {
#define VDLA_ISA_X(name, member) name,
  VDLA_ISA_FIELDS(VDLA_ISA_X)
#undef VDLA_ISA_X
};
constexpr int kNumFields = 0
#define VDLA_ISA_X(name, member) +1
    VDLA_ISA_FIELDS(VDLA_ISA_X)
#undef VDLA_ISA_X
    ;
const char* fieldName(Field f);  // snake_case, as in Instruction

struct BitField {
  Field field;
  uint32_t offset;  // from bit 0 of the 128-bit word
  uint32_t width;
  bool is_signed;
};

class IsaLayout {
 public:
  explicit IsaLayout(const HwConfig& cfg);

  // Fields encoded for an opcode, in bit order (the common fields first).
  // `op` must be a valid opcode (decode() is the place that validates raw bits).
  const std::vector<BitField>& fields(Opcode op) const { return fields_[int(op)]; }
  uint32_t usedBits(Opcode op) const;
  uint32_t uopDstBits() const { return uop_dst_bits_; }
  uint32_t uopSrcBits() const { return uop_src_bits_; }
  uint32_t uopWgtBits() const { return uop_wgt_bits_; }
  int numAluOps() const { return num_alu_ops_; }              // numAluOps(cfg) of the config it was built for
  uint32_t depthwiseTaps() const { return depthwise_taps_; }  // the config's; 0: no DWGEMM
  // Whether the config has the instruction (DWGEMM only with depthwise_taps,
  // SETREQ only with gemm_requant).
  bool hasOpcode(Opcode op) const {
    return (op != Opcode::DwGemm || depthwise_taps_ != 0) && (op != Opcode::SetReq || gemm_requant_);
  }
  bool hasGemmRequant() const { return gemm_requant_; }     // SETREQ and the GEMM flag requant
  bool hasAluBiasClear() const { return alu_bias_clear_; }  // the ALU flag bias_clear (extension alu_bias_clear)

  // Packs an instruction; throws vdla::Error naming the field if a value does
  // not fit. `where` prefixes the message (e.g. "instruction 12").
  EncodedInstruction encode(const Instruction& insn, const std::string& where = "") const;
  // Unpacks; throws vdla::Error for an unknown opcode, memory or ALU op, or
  // non-zero bits outside the opcode's fields.
  Instruction decode(const EncodedInstruction& bits, const std::string& where = "") const;

  uint32_t encodeUop(const Uop& uop, const std::string& where = "") const;
  Uop decodeUop(uint32_t bits) const;

  // Empty if `value` is a legal value of field `f` of opcode `op` (fits the
  // width and sign; a valid memory or ALU op), otherwise the reason.
  static std::string whyInvalidValue(Opcode op, const BitField& f, int64_t value);

  // Empty if every field of every instruction fits in 128 bits and a micro-op in
  // 32 bits; otherwise the reason.
  static std::string whyUnencodable(const HwConfig& cfg);

 private:
  std::vector<BitField> fields_[kNumOpcodes];
  uint32_t uop_dst_bits_, uop_src_bits_, uop_wgt_bits_;
  int num_alu_ops_;
  uint32_t lane_blocks_ = 1;  // DWGEMM's lane_block is below this
  uint32_t depthwise_taps_;   // 0: DWGEMM is refused  // numAluOps(cfg): ops beyond the config's extensions are refused
  bool alu_bias_clear_;       // false: ALU bias_clear is refused
  bool gemm_requant_;         // false: SETREQ and GEMM requant are refused
  bool inp_writeback_;        // false: STORE INP is refused
  std::string config_name_;
};

// Reads and writes a field of an instruction as a raw integer (signed fields as
// their two's complement value sign-extended to 64 bits).
int64_t getField(const Instruction& insn, Field f);
void setField(Instruction& insn, Field f, int64_t value);

}  // namespace vdla::hw
