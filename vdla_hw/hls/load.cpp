// Load module: executes LOAD INP and LOAD WGT. Its previous stage does not
// exist; its next stage is compute (tokens compute->load in, load->compute out).
#include "load_block.h"

namespace VDLA_HLS_NS {
namespace {

struct InputWeightWriter {
  const DramPorts& dram;
  int8_t (*inp)[BATCH][BLOCK_IN];
  int8_t (*wgt)[BLOCK_OUT][BLOCK_IN];
  void write(unsigned memory, uint32_t e, int w, uint64_t entry, bool pad) {
    if (memory == unsigned(MEM_INP)) {
      const ap_uint<INP_WORD_BITS> word =
          pad ? ap_uint<INP_WORD_BITS>(0) : ap_uint<INP_WORD_BITS>(dram.inp[entry * INP_WORDS + w]);
      unpack_int8<INP_WORD_BITS, BLOCK_IN>(word, w, inp[e]);
    } else {
      const ap_uint<WGT_WORD_BITS> word =
          pad ? ap_uint<WGT_WORD_BITS>(0) : ap_uint<WGT_WORD_BITS>(dram.wgt[entry * WGT_WORDS + w]);
      unpack_int8<WGT_WORD_BITS, BLOCK_IN>(word, w, wgt[e]);
    }
  }
};

}  // namespace

StepResult load_step(ModuleRegs& r, hls::stream<Command>& queue, TokenCounts& tokens, const DramPorts& dram,
                     inp_mem_t inp, wgt_mem_t wgt) {
  const TokenPorts ports = {-1, TQ_C2L, -1, TQ_L2C};
  bool progressed = false;
  if (!r.head_valid) {
    if (queue.empty()) return step_result(ST_IDLE);
    r.head = queue.read();
    r.head_valid = true;
    progressed = true;
  }
  const Flags f = flags_of(r.head.insn);
  const uint8_t wait = token_wait(f, ports, tokens);
  if (wait != ST_BUSY) {
    StepResult res = step_result(wait);
    res.progressed = progressed;
    return res;
  }
  token_pop(f, ports, tokens);
  InputWeightWriter writer = {dram, inp, wgt};
  uint32_t info = 0;
  const uint8_t err = load_block(decode_xfer(r.head.insn), writer, info);
  if (err != ERR_NONE) return step_error(err, r.head.index, info);
  token_push(f, ports, tokens);
  r.head_valid = false;
  StepResult res = step_result(ST_BUSY);
  res.progressed = res.completed = true;
  return res;
}

}  // namespace VDLA_HLS_NS
