// Store module: executes STORE OUT, y_size rows of x_size OUT entries packed
// from sram_base, to DRAM rows x_stride entries apart, and with the
// extension inp_writeback STORE INP, the same rows to INP (dram_base is then
// an INP index). Its previous stage is compute (tokens compute->store in,
// store->compute out); there is no next.
#include "vdla_hls.h"

namespace VDLA_HLS_NS {
namespace {

void store_block(const Xfer& x, const DramPorts& dram, const out_mem_t out) {
  uint32_t e = x.sram_base;
ROWS:
  for (uint32_t r = 0; r < x.y_size; ++r) {
#pragma HLS loop_tripcount max = 64
    const uint64_t row_entry = x.dram_base + uint64_t(r) * x.x_stride;
  COLS:
    for (uint32_t c = 0; c < x.x_size; ++c, ++e) {
#pragma HLS loop_tripcount max = 64
    WORDS:
      for (int w = 0; w < OUT_WORDS; ++w) {
#pragma HLS pipeline II = 1
        ap_uint<OUT_WORD_BITS> word = 0;
      BYTES:
        for (int b = 0; b < OUT_WORD_BITS / 8; ++b) {
#pragma HLS unroll
          const int el = w * (OUT_WORD_BITS / 8) + b;
          word.range(8 * b + 7, 8 * b) = uint64_t(uint8_t(out[e][el / BLOCK_OUT][el % BLOCK_OUT]));
        }
        dram.out[(row_entry + c) * OUT_WORDS + w] = word;
      }
    }
  }
}

// STORE INP: OUT and INP entries have one width (the config's rule). Each
// row is range-checked before it is written, as the RTL does, so a failing
// instruction leaves the rows before it in INP; returns the end of the first
// row past INP, or 0.
uint64_t store_to_input(const Xfer& x, const out_mem_t out, inp_mem_t inp) {
  uint32_t e = x.sram_base;
ROWS:
  for (uint32_t r = 0; r < x.y_size; ++r) {
#pragma HLS loop_tripcount max = 64
    const uint64_t row = x.dram_base + uint64_t(r) * x.x_stride;
    if (x.x_size != 0 && row + x.x_size > uint64_t(INP_DEPTH)) return row + x.x_size;
  COLS:
    for (uint32_t c = 0; c < x.x_size; ++c, ++e) {
#pragma HLS pipeline II = 1
      for (int b = 0; b < BATCH; ++b)
        for (int k = 0; k < BLOCK_IN; ++k) {
#pragma HLS unroll
          const int el = b * BLOCK_IN + k;
          inp[row + c][b][k] = out[e][el / BLOCK_OUT][el % BLOCK_OUT];
        }
    }
  }
  return 0;
}

}  // namespace

StepResult store_step(ModuleRegs& r, hls::stream<Command>& queue, TokenCounts& tokens, const DramPorts& dram,
                      const out_mem_t out, inp_mem_t inp) {
  const TokenPorts ports = {TQ_C2S, -1, TQ_S2C, -1};
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
  const Xfer x = decode_xfer(r.head.insn);
  const uint64_t end = uint64_t(x.sram_base) + uint64_t(x.y_size) * x.x_size;
  if (end > uint64_t(OUT_DEPTH)) return step_error(ERR_SRAM_RANGE, r.head.index, uint32_t(end));
  if (INP_WRITEBACK != 0 && x.memory == unsigned(MEM_INP)) {
    const uint64_t bad = store_to_input(x, out, inp);
    if (bad) return step_error(ERR_SRAM_RANGE, r.head.index, uint32_t(bad));
  } else {
    store_block(x, dram, out);
  }
  token_push(f, ports, tokens);
  r.head_valid = false;
  StepResult res = step_result(ST_BUSY);
  res.progressed = res.completed = true;
  return res;
}

}  // namespace VDLA_HLS_NS
