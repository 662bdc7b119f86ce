// Compute module: LOAD UOP / ACC / ACC8 into its own memories, GEMM, DWGEMM
// (extension depthwise_taps) and ALU over the micro-op loop nest, SETREQ
// (extension gemm_requant), and FINISH.
// Both neighbours exist: load before it (tokens load->compute in,
// compute->load out) and store after it (store->compute in, compute->store
// out).
//
// Every GEMM/DWGEMM/ALU write of ACC[d] also writes OUT[d], the low byte of
// each accumulator; a requantising GEMM writes the requantised value there
// instead (SETREQ's state). Indices are checked before the loop nest runs (the largest
// index is reached in the last iteration, factors being unsigned), so a bad
// instruction changes nothing, exactly as in fsim.
#include "load_block.h"

namespace VDLA_HLS_NS {
namespace {

struct UopAccWriter {
  const DramPorts& dram;
  uint32_t* uop;
  int32_t (*acc)[BATCH][BLOCK_OUT];
  void write(unsigned memory, uint32_t e, int w, uint64_t entry, bool pad) {
    if (memory == unsigned(MEM_UOP)) {
      uop[e] = pad ? 0u : uint32_t(ap_uint<UOP_BITS>(dram.uop[entry]).to_uint64());
    } else if (memory == unsigned(MEM_ACC)) {
      const ap_uint<ACC_WORD_BITS> word =
          pad ? ap_uint<ACC_WORD_BITS>(0) : ap_uint<ACC_WORD_BITS>(dram.acc[entry * ACC_WORDS + w]);
    LANES:
      for (int b = 0; b < ACC_WORD_BITS / 32; ++b) {
#pragma HLS unroll
        const int el = w * (ACC_WORD_BITS / 32) + b;
        acc[e][el / BLOCK_OUT][el % BLOCK_OUT] = int32_t(uint32_t(word.range(32 * b + 31, 32 * b).to_uint64()));
      }
    } else {  // ACC8: int8 elements sign-extended into the accumulator lanes
      const ap_uint<ACC8_WORD_BITS> word =
          pad ? ap_uint<ACC8_WORD_BITS>(0) : ap_uint<ACC8_WORD_BITS>(dram.acc8[entry * ACC8_WORDS + w]);
      unpack_int8<ACC8_WORD_BITS, BLOCK_OUT>(word, w, acc[e]);
    }
  }
};

int32_t clamp_shift(int32_t b) { return b < -31 ? -31 : (b > 31 ? 31 : b); }

// v / 2^k rounded half to even (k in [1, 63]).
uint64_t shift_round_even(uint64_t v, unsigned k) {
  const uint64_t q = v >> k, rem = v & ((uint64_t(1) << k) - 1), half = uint64_t(1) << (k - 1);
  return q + ((rem > half || (rem == half && (q & 1) != 0)) ? 1 : 0);
}

// FREQ: clamp(round_half_even(fl(fl(a) * s)) + zp, -128, 127), s the binary32
// bit pattern b with every exponent read as normal (docs/isa.md): a's
// magnitude to a 24-bit mantissa, times s's, rounded to 24 bits, then to the
// integer point.
int32_t float_requant(int32_t a, uint32_t b, int32_t zp) {
  const bool negative = (a < 0) != ((b >> 31) != 0);
  const uint64_t mag = a < 0 ? uint64_t(0) - uint64_t(int64_t(a)) : uint64_t(a);
  int msb = 0;
MSB:
  for (int i = 1; i < 32; ++i) {
#pragma HLS unroll
    if ((mag >> i) & 1) msb = i;
  }
  int64_t q = 0;  // saturated at 2^40
  if (mag != 0) {
    const uint64_t ma = msb <= 23 ? mag << (23 - msb) : shift_round_even(mag, unsigned(msb - 23));
    const uint64_t prod = ma * ((uint64_t(1) << 23) | (b & 0x7fffffu));
    const int drop = ((prod >> 47) & 1) ? 24 : 23;
    const uint64_t mp = shift_round_even(prod, unsigned(drop));
    const int point = drop + msb - 23 + int((b >> 23) & 0xffu) - 150;
    if (point > 16)
      q = int64_t(1) << 40;
    else if (point >= 0)
      q = int64_t(mp << point);
    else if (point >= -25)
      q = int64_t(shift_round_even(mp, unsigned(-point)));
  }
  const int64_t y = (negative ? -q : q) + zp;
  return int32_t(y < -128 ? -128 : (y > 127 ? 127 : y));
}

// The ALU of docs/isa.md on one 32-bit lane.
int32_t alu_apply(unsigned op, int32_t a, int32_t b, int32_t imm) {
  switch (op) {
    case ALU_MIN: return a < b ? a : b;
    case ALU_MAX: return a > b ? a : b;
    case ALU_ADD: return int32_t(uint32_t(a) + uint32_t(b));
    case ALU_MUL: return int32_t(uint32_t(a) * uint32_t(b));
    case ALU_SHR: {
      const int32_t s = clamp_shift(b);
      return s >= 0 ? (a >> s) : int32_t(uint32_t(a) << -s);
    }
    case ALU_RSHR: {
      const int32_t s = clamp_shift(b);
      if (s <= 0) return int32_t(uint32_t(a) << -s);
      return int32_t((int64_t(a) + (int64_t(1) << (s - 1))) >> s);  // 33 bits suffice; no overflow
    }
    case ALU_CLIP: {
      const int32_t lo = int8_t(b & 0xff), hi = int8_t((b >> 8) & 0xff);
      const int32_t t = a > lo ? a : lo;
      return t < hi ? t : hi;
    }
    case ALU_MULSHR: {
      // a 32 x 26-bit product (58 bits) plus the rounding term: within 64 bits.
      const int64_t m = int64_t(b >> 6);
      const unsigned s = unsigned(b) & 63u;
      const int64_t p = int64_t(a) * m + (s > 0 ? int64_t(1) << (s - 1) : int64_t(0));
      return int32_t(uint32_t(uint64_t(p >> s)));
    }
    case ALU_REQ: return alu_apply(ALU_CLIP, alu_apply(ALU_MULSHR, a, b, imm), imm, imm);  // MULSHR, then CLIP by imm
    case ALU_FREQ: return float_requant(a, uint32_t(b), imm);  // b a binary32 scale, imm the zero point
    default: return b;                                         // MOV (fetch refused every other op)
  }
}

// ERR_NONE, or the first range error of the loop nest with `info` set.
uint8_t check_loop_nest(const LoopNest& n, const uint32_t* uop, uint32_t& info) {
  info = 0;
  if (n.uop_begin > n.uop_end || n.uop_end > uint32_t(UOP_DEPTH)) {
    info = n.uop_end;
    return ERR_UOP_RANGE;
  }
  if (n.uop_begin == n.uop_end || n.iter_out == 0 || n.iter_in == 0) return ERR_NONE;
  uint64_t max_dst = 0, max_src = 0, max_wgt = 0;
MAX:
  for (uint32_t u = n.uop_begin; u < n.uop_end; ++u) {
#pragma HLS pipeline II = 1
#pragma HLS loop_tripcount max = 64
    const uint32_t word = uop[u];
    if (uop_dst(word) > max_dst) max_dst = uop_dst(word);
    if (uop_src(word) > max_src) max_src = uop_src(word);
    if (uop_wgt(word) > max_wgt) max_wgt = uop_wgt(word);
  }
  const uint64_t o = n.iter_out - 1, i = n.iter_in - 1;
  max_src += o * n.src_out + i * n.src_in;
  max_wgt += o * n.wgt_out + i * n.wgt_in;  // DWGEMM: wgt_in is 0
  if (DEPTHWISE_TAPS > 0 && n.is_dw) {
    // Every iteration reads INP and WGT, so both are checked over the whole
    // nest; only the iterations that complete a window write ACC, and the
    // last of a run's (iter_in - taps) / stride + 1 writes reaches the
    // largest dst. A run too short for one window writes nothing, so no dst
    // is checked at all (fsim's order: src, wgt, dst).
    if (max_src >= uint64_t(INP_DEPTH)) {
      info = uint32_t(max_src);
      return ERR_SRC_INDEX;
    }
    if (max_wgt >= uint64_t(WGT_DEPTH)) {
      info = uint32_t(max_wgt);
      return ERR_WGT_INDEX;
    }
    if (n.iter_in >= n.taps) {
      // Once per instruction, by a divisor of DWGEMM_STRIDE_W bits.
      const uint64_t last_write = (n.iter_in - n.taps) / n.stride;
      max_dst += o * n.dst_out + last_write * n.dst_in;
      if (max_dst >= uint64_t(ACC_DEPTH)) {
        info = uint32_t(max_dst);
        return ERR_DST_INDEX;
      }
    }
    return ERR_NONE;
  }
  max_dst += o * n.dst_out + i * n.dst_in;
  if (max_dst >= uint64_t(ACC_DEPTH)) {
    info = uint32_t(max_dst);
    return ERR_DST_INDEX;
  }
  const bool reads_src = n.is_alu ? !n.use_imm : !n.reset;
  const uint64_t src_depth = n.is_alu ? uint64_t(ACC_DEPTH) : uint64_t(INP_DEPTH);
  if (reads_src && max_src >= src_depth) {
    info = uint32_t(max_src);
    return ERR_SRC_INDEX;
  }
  if (n.is_alu && n.bias_clear && !n.use_imm && max_src + 1 >= uint64_t(ACC_DEPTH)) {  // the bias, ACC[src+1]
    info = uint32_t(max_src + 1);
    return ERR_SRC_INDEX;
  }
  if (!n.is_alu && !n.reset && max_wgt >= uint64_t(WGT_DEPTH)) {
    info = uint32_t(max_wgt);
    return ERR_WGT_INDEX;
  }
  return ERR_NONE;
}

// Lane el of an ACC-entry word (ReqState).
int32_t lane_of(const ap_uint<ACC_ENTRY_BITS>& word, int el) {
  return int32_t(uint32_t(word.range(32 * el + 31, 32 * el).to_uint64()));
}

// One micro-op per cycle: a BATCH x BLOCK_OUT block of BLOCK_IN-long dot
// products, all unrolled (the arrays are partitioned by the synthesis top).
// requant (extension gemm_requant): the first micro-op of each iteration
// starts from the state's bias instead of ACC[d], and OUT[d] gets the low
// byte of the state's REQ/FREQ of the sum (ACC[d] the sum).
void gemm(const LoopNest& n, const ReqState& req, const uint32_t* uop, const int8_t (*inp)[BATCH][BLOCK_IN],
          const int8_t (*wgt)[BLOCK_OUT][BLOCK_IN], int32_t (*acc)[BATCH][BLOCK_OUT], int8_t (*out)[BATCH][BLOCK_OUT]) {
  const bool requant = GEMM_REQUANT != 0 && n.requant;
  const unsigned req_op = req.freq ? unsigned(ALU_FREQ) : unsigned(ALU_REQ);
OUTER:
  for (uint32_t o = 0; o < n.iter_out; ++o) {
#pragma HLS loop_tripcount max = 16
  INNER:
    for (uint32_t i = 0; i < n.iter_in; ++i) {
#pragma HLS loop_tripcount max = 16
      VDLA_HLS_POLL_CANCEL();
    UOPS:
      for (uint32_t u = n.uop_begin; u < n.uop_end; ++u) {
#pragma HLS pipeline II = 1
#pragma HLS loop_tripcount max = 16
        const uint32_t word = uop[u];
        const uint32_t d = uop_dst(word) + o * n.dst_out + i * n.dst_in;
        const uint32_t s = uop_src(word) + o * n.src_out + i * n.src_in;
        const uint32_t w = uop_wgt(word) + o * n.wgt_out + i * n.wgt_in;
        const bool from_bias = requant && u == n.uop_begin;
      BATCH_ROWS:
        for (int b = 0; b < BATCH; ++b) {
#pragma HLS unroll
        OUT_COLS:
          for (int c = 0; c < BLOCK_OUT; ++c) {
#pragma HLS unroll
            int32_t sum = 0;
          DOT:
            for (int k = 0; k < BLOCK_IN; ++k) {
#pragma HLS unroll
              sum += n.reset ? 0 : int32_t(inp[s][b][k]) * int32_t(wgt[w][c][k]);
            }
            const int el = b * BLOCK_OUT + c;
            const int32_t start = from_bias ? lane_of(req.bias, el) : acc[d][b][c];
            const int32_t value = n.reset ? 0 : int32_t(uint32_t(start) + uint32_t(sum));  // wraps
            acc[d][b][c] = value;
            const int32_t narrowed = requant ? alu_apply(req_op, value, lane_of(req.operand, el), req.imm) : value;
            out[d][b][c] = int8_t(uint32_t(narrowed) & 0xff);
          }
        }
      }
    }
  }
}

// SETREQ: the op, the imm and copies of ACC[base] (operand) and ACC[base+1]
// (bias); ERR_NONE, or the range error with `info` set.
uint8_t set_req(const insn_t& insn, ReqState& req, const int32_t (*acc)[BATCH][BLOCK_OUT], uint32_t& info) {
  const uint32_t base = uint32_t(field<SETREQ_SRAM_BASE_LSB, SETREQ_SRAM_BASE_W>(insn));
  info = 0;
  if (uint64_t(base) + 1 >= uint64_t(ACC_DEPTH)) {
    info = base + 1;
    return ERR_SRC_INDEX;
  }
  req.freq = field<SETREQ_ALU_OP_LSB, SETREQ_ALU_OP_W>(insn) == uint64_t(ALU_FREQ);
  req.imm = int32_t(signed_field<SETREQ_IMM_LSB, SETREQ_IMM_W>(insn));
COPY_B:
  for (int b = 0; b < BATCH; ++b) {
#pragma HLS unroll
  COPY_C:
    for (int c = 0; c < BLOCK_OUT; ++c) {
#pragma HLS unroll
      const int el = b * BLOCK_OUT + c;
      req.operand.range(32 * el + 31, 32 * el) = uint32_t(acc[base][b][c]);
      req.bias.range(32 * el + 31, 32 * el) = uint32_t(acc[base + 1][b][c]);
    }
  }
  return ERR_NONE;
}

// DWGEMM's arrays keep an extent of at least 1 where the config has no
// extension (the code is there but never synthesised); where it has one,
// BLOCK_IN is BLOCK_OUT or a multiple of it, the lanes are BLOCK_OUT channels
// of the input entry (those of lane_block) and DEPTHWISE_TAPS <= BLOCK_OUT
// (the config reader's rules), so a weight entry holds a row per tap.
constexpr int DW_TAPS = DEPTHWISE_TAPS > 0 ? DEPTHWISE_TAPS : 1;
constexpr int DW_LANES = min_int(BLOCK_IN, BLOCK_OUT);

// A depthwise convolution along a run of inputs: channel c of an input entry
// meets only channel c of the filter, so instead of GEMM's dot products each
// lane is a DEPTHWISE_TAPS-tap FIR over the last inputs of the run. The loop
// order is u, o, i (not GEMM's o, i, u) so that i walks one run and the
// window is a shift register: one input per cycle, and an output whenever
// the window completes one (taps - 1 inputs in, then every stride-th). The
// window restarts from zeros with each run, and all DEPTHWISE_TAPS taps are
// summed whatever the instruction's taps, exactly as fsim (a shorter filter
// has zero weights in its unused rows). requant (extension gemm_requant) as
// gemm(): the first micro-op's writes start from the state's bias, and OUT
// gets the state's op of the sum.
void dwgemm(const LoopNest& n, const ReqState& req, const uint32_t* uop, const int8_t (*inp)[BATCH][BLOCK_IN],
            const int8_t (*wgt)[BLOCK_OUT][BLOCK_IN], int32_t (*acc)[BATCH][BLOCK_OUT],
            int8_t (*out)[BATCH][BLOCK_OUT]) {
  const bool requant = GEMM_REQUANT != 0 && n.requant;
  const unsigned req_op = req.freq ? unsigned(ALU_FREQ) : unsigned(ALU_REQ);
UOPS:
  for (uint32_t u = n.uop_begin; u < n.uop_end; ++u) {
#pragma HLS loop_tripcount max = 16
    const uint32_t word = uop[u];
    const bool from_bias = requant && u == n.uop_begin;  // requant: the first micro-op starts from the bias
  OUTER:
    for (uint32_t o = 0; o < n.iter_out; ++o) {
#pragma HLS loop_tripcount max = 16
      VDLA_HLS_POLL_CANCEL();
      // A run's weight entry does not change (no wgt_in), so it is read once
      // into registers and the pipelined loop below does not read WGT at all.
      int8_t taps_w[DW_TAPS][DW_LANES];
#pragma HLS array_partition variable = taps_w complete dim = 0
      int8_t win[DW_TAPS][BATCH][DW_LANES];
#pragma HLS array_partition variable = win complete dim = 0
      const uint32_t w = uop_wgt(word) + o * n.wgt_out;
      const uint32_t k0 = n.lane_block * DW_LANES;  // the lanes' first channel
    RUN_START:
      for (int t = 0; t < DW_TAPS; ++t) {
#pragma HLS unroll
      W_LANES:
        for (int c = 0; c < DW_LANES; ++c) {
#pragma HLS unroll
          taps_w[t][c] = wgt[w][t][k0 + c];
        WIN_ROWS:
          for (int b = 0; b < BATCH; ++b) {
#pragma HLS unroll
            win[t][b][c] = 0;
          }
        }
      }
      // Running indices and a countdown to the next output instead of
      // multiplications and a modulo per iteration; the index check bounds
      // them, so they cannot wrap.
      uint32_t s = uop_src(word) + o * n.src_out;
      uint32_t d = uop_dst(word) + o * n.dst_out;
      uint32_t until_output = n.taps - 1;
    INNER:
      for (uint32_t i = 0; i < n.iter_in; ++i) {
#pragma HLS pipeline II = 1
#pragma HLS loop_tripcount max = 16
      SHIFT:
        for (int t = DW_TAPS - 1; t > 0; --t) {
#pragma HLS unroll
        SHIFT_ROWS:
          for (int b = 0; b < BATCH; ++b) {
#pragma HLS unroll
          SHIFT_LANES:
            for (int c = 0; c < DW_LANES; ++c) {
#pragma HLS unroll
              win[t][b][c] = win[t - 1][b][c];
            }
          }
        }
      PUSH_ROWS:
        for (int b = 0; b < BATCH; ++b) {
#pragma HLS unroll
        PUSH_LANES:
          for (int c = 0; c < DW_LANES; ++c) {
#pragma HLS unroll
            win[0][b][c] = inp[s][b][k0 + c];
          }
        }
        s += n.src_in;
        const bool completes = until_output == 0;
        until_output = completes ? n.stride - 1 : until_output - 1;
        if (completes) {
        LANES_B:
          for (int b = 0; b < BATCH; ++b) {
#pragma HLS unroll
          LANES_C:
            for (int c = 0; c < DW_LANES; ++c) {
#pragma HLS unroll
              int32_t sum = 0;  // at most DEPTHWISE_TAPS * 2^14: no overflow
            TAPS:
              for (int t = 0; t < DW_TAPS; ++t) {
#pragma HLS unroll
                sum += int32_t(win[t][b][c]) * int32_t(taps_w[t][c]);
              }
              const int el = b * BLOCK_OUT + c;
              const uint32_t start = from_bias ? uint32_t(lane_of(req.bias, el)) : uint32_t(acc[d][b][c]);
              const int32_t value = int32_t(start + uint32_t(sum));  // wraps
              acc[d][b][c] = value;
              const int32_t narrowed = requant ? alu_apply(req_op, value, lane_of(req.operand, el), req.imm) : value;
              out[d][b][c] = int8_t(uint32_t(narrowed) & 0xff);
            }
          }
          d += n.dst_in;
        }
      }
    }
  }
}

// One vector per micro-op; the tensor operand is read before the result is
// written, so dst == src is well defined. (The extension acc_dual_read, a
// second ACC read port, changes the RTL's timing of these loops, not what
// they compute, so it has no code here: the same function serves both.)
void alu(const LoopNest& n, const uint32_t* uop, int32_t (*acc)[BATCH][BLOCK_OUT], int8_t (*out)[BATCH][BLOCK_OUT]) {
OUTER:
  for (uint32_t o = 0; o < n.iter_out; ++o) {
#pragma HLS loop_tripcount max = 16
  INNER:
    for (uint32_t i = 0; i < n.iter_in; ++i) {
#pragma HLS loop_tripcount max = 16
      VDLA_HLS_POLL_CANCEL();
    UOPS:
      for (uint32_t u = n.uop_begin; u < n.uop_end; ++u) {
#pragma HLS pipeline II = 1
#pragma HLS loop_tripcount max = 16
        const uint32_t word = uop[u];
        const uint32_t d = uop_dst(word) + o * n.dst_out + i * n.dst_in;
        const uint32_t s = uop_src(word) + o * n.src_out + i * n.src_in;
      LANES_B:
        for (int b = 0; b < BATCH; ++b) {
#pragma HLS unroll
        LANES_C:
          for (int c = 0; c < BLOCK_OUT; ++c) {
#pragma HLS unroll
            const int32_t operand = n.use_imm ? n.imm : acc[s][b][c];
            // bias_clear: the bias ACC[s+1] joins the first operand, the
            // result goes to OUT only and the accumulator restarts at zero.
            const int32_t bias = (n.bias_clear && !n.use_imm) ? acc[s + 1][b][c] : 0;
            const int32_t value = alu_apply(n.alu_op, int32_t(uint32_t(acc[d][b][c]) + uint32_t(bias)), operand, n.imm);
            acc[d][b][c] = n.bias_clear ? 0 : value;
            out[d][b][c] = int8_t(uint32_t(value) & 0xff);
          }
        }
      }
    }
  }
}

}  // namespace

StepResult compute_step(ModuleRegs& r, ReqState& req, hls::stream<Command>& queue, TokenCounts& tokens,
                        const DramPorts& dram, uop_mem_t uop, const inp_mem_t inp, const wgt_mem_t wgt, acc_mem_t acc,
                        out_mem_t out) {
  const TokenPorts ports = {TQ_L2C, TQ_S2C, TQ_C2L, TQ_C2S};
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
  StepResult res = step_result(ST_BUSY);
  const unsigned op = opcode_of(r.head.insn);
  if (op == OPCODE_LOAD) {
    UopAccWriter writer = {dram, uop, acc};
    uint32_t info = 0;
    const uint8_t err = load_block(decode_xfer(r.head.insn), writer, info);
    if (err != ERR_NONE) return step_error(err, r.head.index, info);
  } else if (op == OPCODE_GEMM || op == OPCODE_ALU || (DEPTHWISE_TAPS > 0 && op == OPCODE_DWGEMM)) {
    const LoopNest n = decode_loop(r.head.insn);
    uint32_t info = 0;
    const uint8_t err = check_loop_nest(n, uop, info);
    if (err != ERR_NONE) return step_error(err, r.head.index, info);
    // DWGEMM counts every (u, o, i) iteration as a GEMM micro-op, as fsim.
    const uint64_t iterations = uint64_t(n.iter_out) * n.iter_in * (n.uop_end - n.uop_begin);
    if (n.is_alu) {
      alu(n, uop, acc, out);
      res.alu_vectors = iterations;
    } else if (DEPTHWISE_TAPS > 0 && n.is_dw) {
      dwgemm(n, req, uop, inp, wgt, acc, out);
      res.gemm_uops = iterations;
    } else {
      gemm(n, req, uop, inp, wgt, acc, out);
      res.gemm_uops = iterations;
    }
  } else if (GEMM_REQUANT != 0 && op == OPCODE_SETREQ) {
    uint32_t info = 0;
    const uint8_t err = set_req(r.head.insn, req, acc, info);
    if (err != ERR_NONE) return step_error(err, r.head.index, info);
  } else {
    res.finish = true;  // FINISH: only its tokens
  }
  token_push(f, ports, tokens);
  r.head_valid = false;
  res.progressed = res.completed = true;
  return res;
}

}  // namespace VDLA_HLS_NS
