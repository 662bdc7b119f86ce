// Fetch: reads the instruction stream, checks every instruction before it is
// dispatched (the checks of the RTL's vdla_insn_check, with the same error
// codes) and routes it, in program order, to the command queue of the module
// that executes it. It stalls while that queue is full.
#include "vdla_hls.h"

namespace VDLA_HLS_NS {
namespace {

// One past the last bit an opcode uses; every bit above must be zero. Fields
// are packed from bit 0 in the order of the layout, so the last one ends it.
unsigned used_bits(unsigned opcode) {
  switch (opcode) {
    case OPCODE_LOAD:
    case OPCODE_STORE: return LOAD_X_PAD_RIGHT_LSB + LOAD_X_PAD_RIGHT_W;
    case OPCODE_GEMM:  // requant last, where the config has it
      return GEMM_REQUANT != 0 ? GEMM_REQUANT_BIT + 1 : GEMM_WGT_FACTOR_IN_LSB + GEMM_WGT_FACTOR_IN_W;
    case OPCODE_SETREQ: return SETREQ_IMM_LSB + SETREQ_IMM_W;
    case OPCODE_ALU: return ALU_BIAS_CLEAR != 0 ? ALU_BIAS_CLEAR_BIT + 1 : ALU_IMM_LSB + ALU_IMM_W;  // bias_clear last
    case OPCODE_DWGEMM:  // requant last, where the config has it, else lane_block, where it is encoded
      return GEMM_REQUANT != 0            ? DWGEMM_REQUANT_BIT + 1
             : DWGEMM_LANE_BLOCK_BITS > 0 ? DWGEMM_LANE_BLOCK_BIT + DWGEMM_LANE_BLOCK_BITS
                                          : DWGEMM_STRIDE_LSB + DWGEMM_STRIDE_W;
    default: return FINISH_PUSH_NEXT_LSB + FINISH_PUSH_NEXT_W;
  }
}

bool stray_bits(const insn_t& insn, unsigned from) {
  bool stray = false;
STRAY:
  for (unsigned lo = 0; lo < unsigned(INSN_BITS); lo += 32) {
#pragma HLS unroll
    const unsigned hi = lo + 31;
    if (hi < from) continue;
    const unsigned first = lo < from ? from : lo;
    if (insn.range(int(hi), int(first)).to_uint64() != 0) stray = true;
  }
  return stray;
}

// 0 load, 1 compute, 2 store (the routing rule of docs/isa.md).
uint8_t queue_of(unsigned opcode, unsigned memory) {
  if (opcode == OPCODE_STORE) return 2;
  if (opcode == OPCODE_LOAD && (memory == MEM_WGT || memory == MEM_INP)) return 0;
  return 1;
}

uint8_t check(const insn_t& insn, uint32_t index, uint32_t count) {
  const unsigned op = opcode_of(insn);
  // A config without the depthwise extension has no DWGEMM: refused like an
  // opcode the ISA does not define, as IsaLayout::decode refuses it.
  const bool dw = DEPTHWISE_TAPS > 0 && op == OPCODE_DWGEMM;
  const bool setreq = GEMM_REQUANT != 0 && op == OPCODE_SETREQ;  // likewise without gemm_requant
  if (op > OPCODE_FINISH && !dw && !setreq) return ERR_OPCODE;
  if (stray_bits(insn, used_bits(op))) return ERR_STRAY_BITS;
  const Flags f = flags_of(insn);
  if (op == OPCODE_LOAD || op == OPCODE_STORE) {
    const Xfer x = decode_xfer(insn);
    const bool legal =
        op == OPCODE_STORE
            ? (x.memory == unsigned(MEM_OUT) || (INP_WRITEBACK != 0 && x.memory == unsigned(MEM_INP)))
            : (x.memory == unsigned(MEM_UOP) || x.memory == unsigned(MEM_WGT) || x.memory == unsigned(MEM_INP) ||
               x.memory == unsigned(MEM_ACC) || x.memory == unsigned(MEM_ACC8));
    if (!legal) return ERR_MEMORY;
    const bool padded = x.y_pad_top || x.y_pad_bottom || x.x_pad_left || x.x_pad_right;
    if (padded && (op == OPCODE_STORE || x.memory == unsigned(MEM_UOP))) return ERR_PADDING;
  }
  if (op == OPCODE_ALU) {
    const LoopNest n = decode_loop(insn);
    if (n.alu_op > unsigned(ALU_OP_LAST)) return ERR_ALU_OP;
    // REQ's imm holds its clip bounds and FREQ's its zero point with either operand
    if (!n.use_imm && n.imm != 0 && n.alu_op != unsigned(ALU_REQ) && n.alu_op != unsigned(ALU_FREQ))
      return ERR_IMM_WITHOUT_USE_IMM;
  }
  if (setreq) {  // REQ or FREQ, the latter only where the config has it
    const unsigned req_op = unsigned(field<SETREQ_ALU_OP_LSB, SETREQ_ALU_OP_W>(insn));
    if ((req_op != unsigned(ALU_REQ) && req_op != unsigned(ALU_FREQ)) || req_op > unsigned(ALU_OP_LAST))
      return ERR_ALU_OP;
  }
  if (op == OPCODE_GEMM && GEMM_REQUANT != 0) {  // requant excludes reset (reported as a flag error, as the RTL)
    const LoopNest n = decode_loop(insn);
    if (n.requant && n.reset) return ERR_MISSING_NEIGHBOUR;
  }
  if (dw) {
    // The window holds DEPTHWISE_TAPS inputs, so a longer filter does not fit;
    // stride 0 would never complete an output (and divides by zero in the
    // index check).
    const LoopNest n = decode_loop(insn);
    if (n.taps == 0 || n.taps > uint32_t(DEPTHWISE_TAPS) || n.stride == 0) return ERR_DW_SHAPE;
  }
  const uint8_t q = queue_of(op, op == OPCODE_LOAD ? decode_xfer(insn).memory : 0);
  if (q == 0 && (f.pop_prev || f.push_prev)) return ERR_MISSING_NEIGHBOUR;
  if (q == 2 && (f.pop_next || f.push_next)) return ERR_MISSING_NEIGHBOUR;
  if (op == OPCODE_FINISH && index + 1 != count) return ERR_FINISH_NOT_LAST;
  if (op != OPCODE_FINISH && index + 1 == count) return ERR_LAST_NOT_FINISH;
  return ERR_NONE;
}

}  // namespace

StepResult fetch_step(FetchRegs& r, const DramPorts& dram, hls::stream<Command> queues[3],
                      const uint32_t occupancy[3]) {
  bool progressed = false;
  if (!r.pending_valid) {
    if (r.next >= r.count) return step_result(ST_FETCH_DONE);
    const insn_t insn = dram.insn[r.insn_word + r.next];
    const uint8_t err = check(insn, r.next, r.count);
    if (err != ERR_NONE) return step_error(err, r.next, 0);
    r.pending.insn = insn;
    r.pending.index = r.next;
    r.pending_queue = queue_of(opcode_of(insn), decode_xfer(insn).memory);
    r.pending_valid = true;
    r.next++;
    progressed = true;
  }
  StepResult res = step_result(ST_BUSY);
  if (occupancy[r.pending_queue] >= uint32_t(CMD_QUEUE_DEPTH)) {
    res.state = ST_FETCH_WAIT_SLOT;
  } else {
    queues[r.pending_queue].write(r.pending);
    r.pending_valid = false;
    res.completed = true;  // one more command in queue pending_queue
    progressed = true;
  }
  res.progressed = progressed;
  return res;
}

}  // namespace VDLA_HLS_NS
