// Test bench of the synthesis top vdla_top (Vitis HLS C simulation, and the
// project's ctest through the host-side types): a program of every module --
// LOAD UOP/INP/WGT, GEMM reset and accumulate, ALU ADD immediate, STORE --
// driven through the AXI-Lite register window exactly as a host would (address,
// count, START, poll CTRL), its output compared with a plain triple loop; then
// a second run (restart) and an empty program (ERROR, code 10). Where the
// config has the depthwise extension, a DWGEMM program against its own loop,
// and DWGEMM with taps 0 refused (DW_SHAPE); where not, DWGEMM refused as an
// unknown opcode.
//
// Each DRAM port is its own array here, so every memory's entries start at
// index 0 (the ports use offset=off: the instructions carry the addresses).
#include <cstdio>
#include <cstdlib>

#include "vdla_top.h"

using namespace VDLA_HLS_NS;

void vdla_top(uint32_t window[regs::kSpanBytes / 4], ap_uint<INSN_BITS>* insn, ap_uint<UOP_BITS>* uop_dram,
              ap_uint<INP_WORD_BITS>* inp_dram, ap_uint<WGT_WORD_BITS>* wgt_dram, ap_uint<ACC_WORD_BITS>* acc_dram,
              ap_uint<ACC8_WORD_BITS>* acc8_dram, ap_uint<OUT_WORD_BITS>* out_dram);

namespace {

uint32_t window[regs::kSpanBytes / 4];
ap_uint<INSN_BITS> insns[16];
ap_uint<UOP_BITS> uops[4];
// The DWGEMM program: kDwOutputs windows of DEPTHWISE_TAPS inputs.
constexpr int kDwTaps = DEPTHWISE_TAPS > 0 ? DEPTHWISE_TAPS : 1;
constexpr int kDwOutputs = 2;
constexpr int kInpEntries = kDwTaps + kDwOutputs - 1;
ap_uint<INP_WORD_BITS> inp[kInpEntries * INP_WORDS];
ap_uint<WGT_WORD_BITS> wgt[WGT_WORDS];
ap_uint<ACC_WORD_BITS> acc[ACC_WORDS];
ap_uint<ACC8_WORD_BITS> acc8[ACC8_WORDS];
ap_uint<OUT_WORD_BITS> out[kDwOutputs * OUT_WORDS];
int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAIL: %s\n", what);
    ++failures;
  }
}

void put(ap_uint<INSN_BITS>& i, int lsb, int width, uint64_t value) { i.range(lsb + width - 1, lsb) = value; }

// LOAD/STORE of `x` entries at SRAM 0 and DRAM entry 0.
ap_uint<INSN_BITS> xfer(int opcode, int memory, bool pop_prev, bool push_next, int x = 1) {
  ap_uint<INSN_BITS> i = 0;
  put(i, LOAD_OPCODE_LSB, LOAD_OPCODE_W, opcode);
  put(i, LOAD_POP_PREV_LSB, 1, pop_prev);
  put(i, LOAD_PUSH_NEXT_LSB, 1, push_next);
  put(i, LOAD_MEMORY_LSB, LOAD_MEMORY_W, memory);
  put(i, LOAD_Y_SIZE_LSB, LOAD_Y_SIZE_W, 1);
  put(i, LOAD_X_SIZE_LSB, LOAD_X_SIZE_W, x);
  put(i, LOAD_X_STRIDE_LSB, LOAD_X_STRIDE_W, x);
  return i;
}

// GEMM over `iter_in` consecutive entries (dst and src factors 1, one weight).
ap_uint<INSN_BITS> gemm(bool reset, bool pop_prev, int iter_in = 1) {
  ap_uint<INSN_BITS> i = 0;
  put(i, GEMM_OPCODE_LSB, GEMM_OPCODE_W, OPCODE_GEMM);
  put(i, GEMM_POP_PREV_LSB, 1, pop_prev);
  put(i, GEMM_RESET_LSB, GEMM_RESET_W, reset);
  put(i, GEMM_UOP_END_LSB, GEMM_UOP_END_W, 1);
  put(i, GEMM_ITER_OUT_LSB, GEMM_ITER_OUT_W, 1);
  put(i, GEMM_ITER_IN_LSB, GEMM_ITER_IN_W, iter_in);
  if (iter_in > 1) {
    put(i, GEMM_DST_FACTOR_IN_LSB, GEMM_DST_FACTOR_IN_W, 1);
    put(i, GEMM_SRC_FACTOR_IN_LSB, GEMM_SRC_FACTOR_IN_W, 1);
  }
  return i;
}

// DWGEMM over the inputs 0 .. iter_in - 1 into ACC 0, 1, ... (stride 1).
ap_uint<INSN_BITS> dwgemm(int taps, int iter_in) {
  ap_uint<INSN_BITS> i = 0;
  put(i, DWGEMM_OPCODE_LSB, DWGEMM_OPCODE_W, OPCODE_DWGEMM);
  put(i, DWGEMM_POP_PREV_LSB, 1, 1);
  put(i, DWGEMM_PUSH_NEXT_LSB, 1, 1);
  put(i, DWGEMM_UOP_END_LSB, DWGEMM_UOP_END_W, 1);
  put(i, DWGEMM_ITER_OUT_LSB, DWGEMM_ITER_OUT_W, 1);
  put(i, DWGEMM_ITER_IN_LSB, DWGEMM_ITER_IN_W, iter_in);
  put(i, DWGEMM_DST_FACTOR_IN_LSB, DWGEMM_DST_FACTOR_IN_W, 1);
  put(i, DWGEMM_SRC_FACTOR_IN_LSB, DWGEMM_SRC_FACTOR_IN_W, 1);
  put(i, DWGEMM_TAPS_LSB, DWGEMM_TAPS_W, taps);
  put(i, DWGEMM_STRIDE_LSB, DWGEMM_STRIDE_W, 1);
  return i;
}

ap_uint<INSN_BITS> alu_add_imm(int imm) {
  ap_uint<INSN_BITS> i = 0;
  put(i, ALU_OPCODE_LSB, ALU_OPCODE_W, OPCODE_ALU);
  put(i, ALU_PUSH_NEXT_LSB, 1, 1);
  put(i, ALU_ALU_OP_LSB, ALU_ALU_OP_W, ALU_ADD);
  put(i, ALU_USE_IMM_LSB, ALU_USE_IMM_W, 1);
  put(i, ALU_UOP_END_LSB, ALU_UOP_END_W, 1);
  put(i, ALU_ITER_OUT_LSB, ALU_ITER_OUT_W, 1);
  put(i, ALU_ITER_IN_LSB, ALU_ITER_IN_W, 1);
  put(i, ALU_IMM_LSB, ALU_IMM_W, uint64_t(int64_t(imm)));
  return i;
}

// Byte `b` of an entry spread over words of `BITS` bits.
template <int BITS>
int8_t byte_of(const ap_uint<BITS>* words, int b) {
  return int8_t(words[b / (BITS / 8)].range(8 * (b % (BITS / 8)) + 7, 8 * (b % (BITS / 8))).to_uint64());
}
template <int BITS>
void set_byte(ap_uint<BITS>* words, int b, int8_t v) {
  words[b / (BITS / 8)].range(8 * (b % (BITS / 8)) + 7, 8 * (b % (BITS / 8))) = uint64_t(uint8_t(v));
}

// START, then invocations until CTRL leaves RUNNING (bounded).
uint32_t run(uint32_t count) {
  window[regs::kInsnAddr / 4] = 0;
  window[regs::kInsnAddrHi / 4] = 0;
  window[regs::kInsnCount / 4] = count;
  window[regs::kCtrl / 4] = regs::kCtrlStart;
  for (int call = 0; call < 100; ++call) {
    vdla_top(window, insns, uops, inp, wgt, acc, acc8, out);
    if (!(window[regs::kCtrl / 4] & regs::kCtrlRunning)) break;
  }
  return window[regs::kCtrl / 4];
}

}  // namespace

int main() {
  uint32_t seed = 12345;
  auto next = [&seed]() {
    seed = seed * 1103515245u + 12345u;
    return int8_t(seed >> 16);
  };
  for (int b = 0; b < kInpEntries * INP_ENTRY_BITS / 8; ++b) set_byte(inp, b, next());
  for (int b = 0; b < WGT_ENTRY_BITS / 8; ++b) set_byte(wgt, b, next());
  uops[0] = 0;  // dst 0, src 0, wgt 0
  int n = 0;
  insns[n++] = xfer(OPCODE_LOAD, MEM_UOP, false, false);
  insns[n++] = xfer(OPCODE_LOAD, MEM_INP, false, false);
  insns[n++] = xfer(OPCODE_LOAD, MEM_WGT, false, true);
  insns[n++] = gemm(true, false);
  insns[n++] = gemm(false, true);
  insns[n++] = alu_add_imm(3);
  insns[n++] = xfer(OPCODE_STORE, MEM_OUT, true, false);
  ap_uint<INSN_BITS> finish = 0;
  put(finish, FINISH_OPCODE_LSB, FINISH_OPCODE_W, OPCODE_FINISH);
  insns[n++] = finish;

  for (int attempt = 0; attempt < 2; ++attempt) {  // the second run checks a restart
    for (int w = 0; w < OUT_WORDS; ++w) out[w] = 0;
    check(run(uint32_t(n)) == regs::kCtrlDone, "the program ends with CTRL = DONE");
    check(window[regs::kErrorCode / 4] == 0, "no error code");
    check(window[regs::kCounters / 4 + 2 * regs::kCntGemmUops] == 2, "GEMM micro-op counter = 2");
    check(window[regs::kCounters / 4 + 2 * regs::kCntAluVectors] == 1, "ALU vector counter = 1");
    check(window[regs::kHashLo / 4] == uint32_t(CONFIG_HASH), "HASH_LO is the config's");
    for (int b = 0; b < BATCH; ++b)
      for (int o = 0; o < BLOCK_OUT; ++o) {
        int32_t sum = 3;
        for (int k = 0; k < BLOCK_IN; ++k)
          sum += int32_t(byte_of(inp, b * BLOCK_IN + k)) * byte_of(wgt, o * BLOCK_IN + k);
        if (byte_of(out, b * BLOCK_OUT + o) != int8_t(sum & 0xff)) {
          std::printf("FAIL: out[%d][%d] = %d, expected %d\n", b, o, byte_of(out, b * BLOCK_OUT + o),
                      int8_t(sum & 0xff));
          ++failures;
        }
      }
  }
  check(run(0) == regs::kCtrlError, "an empty program ends with CTRL = ERROR");
  check((window[regs::kErrorCode / 4] & 0xff) == regs::kErrEmpty, "ERROR_CODE = 10 (instruction count 0)");

  // DWGEMM: out[j] = sum over t of inp[j + taps - 1 - t] * row t of the
  // weight entry, channel by channel.
  n = 0;
  insns[n++] = xfer(OPCODE_LOAD, MEM_UOP, false, false);
  insns[n++] = xfer(OPCODE_LOAD, MEM_INP, false, false, kInpEntries);
  insns[n++] = xfer(OPCODE_LOAD, MEM_WGT, false, true);
  insns[n++] = gemm(true, false, kDwOutputs);  // zeroes ACC[0, kDwOutputs)
  const int dw_index = n;
  insns[n++] = dwgemm(kDwTaps, kInpEntries);
  insns[n++] = xfer(OPCODE_STORE, MEM_OUT, true, false, kDwOutputs);
  insns[n++] = finish;
  for (int w = 0; w < kDwOutputs * OUT_WORDS; ++w) out[w] = 0;
  const uint32_t dw_ctrl = run(uint32_t(n));
  if (DEPTHWISE_TAPS > 0) {
    check(dw_ctrl == regs::kCtrlDone, "the DWGEMM program ends with CTRL = DONE");
    check(window[regs::kCounters / 4 + 2 * regs::kCntGemmUops] == uint32_t(kDwOutputs + kInpEntries),
          "GEMM micro-op counter counts every DWGEMM iteration");
    for (int j = 0; j < kDwOutputs; ++j)
      for (int b = 0; b < BATCH; ++b)
        for (int c = 0; c < BLOCK_OUT; ++c) {
          int32_t sum = 0;
          for (int t = 0; t < kDwTaps; ++t)
            sum += int32_t(byte_of(inp, (j + kDwTaps - 1 - t) * BATCH * BLOCK_IN + b * BLOCK_IN + c)) *
                   byte_of(wgt, t * BLOCK_IN + c);
          const int8_t got = byte_of(out, (j * BATCH + b) * BLOCK_OUT + c);
          if (got != int8_t(sum & 0xff)) {
            std::printf("FAIL: DWGEMM out[%d][%d][%d] = %d, expected %d\n", j, b, c, got, int8_t(sum & 0xff));
            ++failures;
          }
        }
    insns[dw_index] = dwgemm(0, kInpEntries);
    check(run(uint32_t(n)) == regs::kCtrlError, "DWGEMM with taps 0 ends with CTRL = ERROR");
    check(window[regs::kErrorCode / 4] == regs::kErrDwShape, "ERROR_CODE = DW_SHAPE, reported by fetch");
    check(window[regs::kErrorIndex / 4] == uint32_t(dw_index), "ERROR_INDEX is the DWGEMM's");
  } else {
    check(dw_ctrl == regs::kCtrlError, "DWGEMM without the extension ends with CTRL = ERROR");
    check(window[regs::kErrorCode / 4] == regs::kErrOpcode, "ERROR_CODE = OPCODE, reported by fetch");
    check(window[regs::kErrorIndex / 4] == uint32_t(dw_index), "ERROR_INDEX is the DWGEMM's");
  }

  std::printf("%s: %d failure(s)\n", VDLA_CONFIG_NAME, failures);
  return failures == 0 ? 0 : 1;
}
