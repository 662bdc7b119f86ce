#include "vdla/hw/isa.h"

#include "vdla/hw/isa_layout.h"

namespace vdla::hw {

const char* opcodeName(Opcode op) {
  switch (op) {
    case Opcode::Load: return "LOAD";
    case Opcode::Store: return "STORE";
    case Opcode::Gemm: return "GEMM";
    case Opcode::Alu: return "ALU";
    case Opcode::Finish: return "FINISH";
    case Opcode::DwGemm: return "DWGEMM";
    case Opcode::SetReq: return "SETREQ";
  }
  return "?";
}

const char* aluOpName(AluOp op) {
  switch (op) {
    case AluOp::Min: return "MIN";
    case AluOp::Max: return "MAX";
    case AluOp::Add: return "ADD";
    case AluOp::Mul: return "MUL";
    case AluOp::Shr: return "SHR";
    case AluOp::Rshr: return "RSHR";
    case AluOp::Mov: return "MOV";
    case AluOp::Clip: return "CLIP";
    case AluOp::MulShr: return "MULSHR";
    case AluOp::Req: return "REQ";
    case AluOp::FReq: return "FREQ";
  }
  return "?";
}

int numAluOps(const HwConfig& cfg) {
  if (cfg.float_requant) return kNumAluOps;  // the config reader requires fused_requant with it
  return cfg.fused_requant ? int(AluOp::FReq) : int(AluOp::Req);
}

const char* moduleName(Module m) {
  switch (m) {
    case Module::Load: return "load";
    case Module::Compute: return "compute";
    case Module::Store: return "store";
  }
  return "?";
}

Module moduleOf(const Instruction& insn) {
  switch (insn.opcode) {
    case Opcode::Load:
      return (insn.memory == Memory::Weight || insn.memory == Memory::Input) ? Module::Load : Module::Compute;
    case Opcode::Store: return Module::Store;
    default: return Module::Compute;
  }
}

uint64_t dwgemmWritesPerRun(const Instruction& insn) {
  if (insn.stride == 0 || insn.iter_in < insn.taps) return 0;
  return (insn.iter_in - insn.taps) / insn.stride + 1;
}

uint64_t gemmMacs(const Instruction& insn, const HwConfig& cfg) {
  const uint64_t uops = insn.uop_end > insn.uop_begin ? insn.uop_end - insn.uop_begin : 0;
  if (insn.opcode == Opcode::Gemm && !insn.reset)
    return uint64_t(insn.iter_out) * insn.iter_in * uops * cfg.macsPerCycle();
  if (insn.opcode == Opcode::DwGemm)
    return uint64_t(insn.iter_out) * uops * dwgemmWritesPerRun(insn) * insn.taps * cfg.batch * cfg.block_out;
  return 0;
}

bool Instruction::operator==(const Instruction& o) const {
  for (int f = 0; f < kNumFields; ++f)
    if (getField(*this, Field(f)) != getField(o, Field(f))) return false;
  return true;
}

}  // namespace vdla::hw
