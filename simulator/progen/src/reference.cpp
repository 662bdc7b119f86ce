// The sequential reference interpreter, written from docs/isa.md without
// fsim's datapath: every memory is a flat array handled one element at a
// time, and every ALU op is restated in 64-bit arithmetic.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "tokens.h"
#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/sim/progen_reference.h"

namespace vdla::sim::progen {
namespace {

using hw::AluOp;
using hw::Instruction;
using hw::Memory;
using hw::Opcode;

int64_t clampShift(int64_t b) { return b < -31 ? -31 : (b > 31 ? 31 : b); }

// docs/isa.md, ALU table.
int32_t aluReference(AluOp op, int32_t a32, int32_t b32, int32_t imm) {
  const int64_t a = a32, b = b32;
  int64_t r = 0;
  switch (op) {
    case AluOp::Min: r = a < b ? a : b; break;
    case AluOp::Max: r = a > b ? a : b; break;
    case AluOp::Add: r = a + b; break;
    case AluOp::Mul: r = int64_t(uint64_t(a) * uint64_t(b)); break;
    case AluOp::Shr:
    case AluOp::Rshr: {
      const int64_t s = clampShift(b);
      if (s < 0)
        r = int64_t(uint64_t(a) << -s);
      else if (s == 0 || op == AluOp::Shr)
        r = a >> s;  // arithmetic on a negative int64
      else
        r = (a + (int64_t(1) << (s - 1))) >> s;
      break;
    }
    case AluOp::Mov: r = b; break;
    case AluOp::Clip: {
      const int64_t lo = int8_t(uint8_t(uint32_t(b32))), hi = int8_t(uint8_t(uint32_t(b32) >> 8));
      r = a < lo ? lo : a;
      r = r > hi ? hi : r;
      break;
    }
    case AluOp::MulShr: {
      // In 128 bits, so that the reference does not lean on the 64-bit bound.
      __extension__ using Int128 = __int128;
      const Int128 m = b >> 6, s = b & 63;
      Int128 p = Int128(a) * m;
      if (s > 0) p += Int128(1) << (s - 1);
      r = int64_t(p >> s);
      break;
    }
    case AluOp::Req:  // MULSHR by b, then CLIP by the instruction's imm
      r = aluReference(AluOp::Clip, aluReference(AluOp::MulShr, a32, b32, imm), imm, imm);
      break;
    case AluOp::FReq: {
      // In double, where every step below is exact: fl(a) is a float's value,
      // s = (2^23 + F) * 2^(E - 150) for every exponent field, their product
      // has 48 bits; it is rounded to 24 significant bits, then to an integer
      // (nearbyint: half to even in the default rounding mode).
      const uint32_t bits = uint32_t(b32);
      const double s = std::ldexp(double((1u << 23) | (bits & 0x7fffffu)), int((bits >> 23) & 0xffu) - 150) *
                       ((bits >> 31) ? -1.0 : 1.0);
      const double product = double(float(a32)) * s;
      int exponent = 0;
      const double fraction = std::frexp(product, &exponent);  // in [0.5, 1)
      const double rounded = std::ldexp(std::nearbyint(std::ldexp(fraction, 24)), exponent - 24);
      const double q = std::nearbyint(std::max(-0x1p45, std::min(0x1p45, rounded)));
      r = int64_t(q) + imm;
      r = r < -128 ? -128 : (r > 127 ? 127 : r);
      break;
    }
  }
  return int32_t(uint32_t(uint64_t(r)));  // low 32 bits
}

class Interpreter {
 public:
  Interpreter(const hw::HwConfig& cfg, const RandomProgram& p)
      : cfg_(cfg), p_(p), layout_(cfg), B_(cfg.batch), BI_(cfg.block_in), BO_(cfg.block_out) {
    uop_.resize(cfg.depth(Memory::Uop));
    uop_ok_.assign(cfg.depth(Memory::Uop), false);
    inp_.assign(size_t(cfg.depth(Memory::Input)) * B_ * BI_, 0);
    inp_ok_.assign(cfg.depth(Memory::Input), false);
    wgt_.assign(size_t(cfg.depth(Memory::Weight)) * BO_ * BI_, 0);
    wgt_ok_.assign(cfg.depth(Memory::Weight), false);
    acc_.assign(size_t(cfg.depth(Memory::Acc)) * B_ * BO_, 0);
    acc_ok_.assign(cfg.depth(Memory::Acc), false);
    out_.assign(size_t(cfg.depth(Memory::Acc)) * B_ * BO_, 0);
    out_ok_.assign(cfg.depth(Memory::Acc), false);
    req_operand_.assign(size_t(B_) * BO_, 0);  // the state after reset
    req_bias_.assign(size_t(B_) * BO_, 0);
    for (const auto& b : p.buffers) dram_.push_back(b.init);
  }

  std::vector<std::vector<uint8_t>> run() {
    if (p_.instructions.empty() || p_.instructions.back().opcode != Opcode::Finish)
      throw Error("reference: the program does not end with FINISH");
    for (size_t i = 0; i < p_.instructions.size(); ++i) {
      where_ = "reference: instruction " + std::to_string(i);
      const Instruction& insn = p_.instructions[i];
      if (insn.opcode == Opcode::Finish && i + 1 != p_.instructions.size()) fail("FINISH before the end");
      tokensBefore(insn);
      switch (insn.opcode) {
        case Opcode::Load: load(insn, p_.buffer_of[i]); break;
        case Opcode::Store: store(insn, p_.buffer_of[i]); break;
        case Opcode::Gemm: gemm(insn); break;
        case Opcode::DwGemm: dwgemm(insn); break;
        case Opcode::Alu: alu(insn); break;
        case Opcode::SetReq: setReq(insn); break;
        case Opcode::Finish: break;
      }
      tokensAfter(insn);
    }
    for (int q = 0; q < 4; ++q)
      if (tokens_[q] != 0)
        throw Error("reference: " + std::to_string(tokens_[q]) + " token(s) left in queue " + std::to_string(q));
    return dram_;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { throw Error(where_ + ": " + why); }

  // In program order every pop must find a token and every push room.
  void tokensBefore(const Instruction& insn) {
    const int m = int(hw::moduleOf(insn));
    if (m == kLoadModule && (insn.pop_prev || insn.push_prev)) fail("load has no previous stage");
    if (m == kStoreModule && (insn.pop_next || insn.push_next)) fail("store has no next stage");
    for (int q = 0; q < 4; ++q)
      if (queueEnds(q).consumer == m && pops(insn, q)) {
        if (tokens_[q] == 0) fail("pops an empty token queue in program order");
        tokens_[q]--;
      }
  }
  void tokensAfter(const Instruction& insn) {
    const int m = int(hw::moduleOf(insn));
    for (int q = 0; q < 4; ++q)
      if (queueEnds(q).producer == m && pushes(insn, q)) {
        if (tokens_[q] >= cfg_.token_queue_depth) fail("pushes to a full token queue in program order");
        tokens_[q]++;
      }
  }

  // Byte offset of DRAM entry `entry` of a memory in buffer `b`, checked.
  uint64_t dramOffset(int b, uint64_t entry, Memory m) const {
    if (b < 0 || size_t(b) >= dram_.size()) fail("transfer without a buffer");
    const uint64_t bytes = cfg_.entryBytes(m), off = entry * bytes;
    if (off + bytes > dram_[size_t(b)].size()) fail("DRAM entry " + std::to_string(entry) + " outside its buffer");
    return off;
  }

  void checkIndex(uint64_t index, Memory m, const char* what) const {
    if (index >= cfg_.depth(m))
      fail(std::string(what) + " index " + std::to_string(index) + " past the memory's " +
           std::to_string(cfg_.depth(m)) + " entries");
  }

  void load(const Instruction& insn, int b) {
    const Memory m = insn.memory;
    const uint64_t rows = uint64_t(insn.y_pad_top) + insn.y_size + insn.y_pad_bottom;
    const uint64_t cols = uint64_t(insn.x_pad_left) + insn.x_size + insn.x_pad_right;
    if (m == Memory::Uop && rows * cols != uint64_t(insn.y_size) * insn.x_size) fail("LOAD UOP with padding");
    for (uint64_t r = 0; r < rows; ++r)
      for (uint64_t c = 0; c < cols; ++c) {
        const uint64_t sram = insn.sram_base + r * cols + c;
        checkIndex(sram, m == Memory::Acc8 ? Memory::Acc : m, "SRAM");
        const bool pad = r < insn.y_pad_top || r >= insn.y_pad_top + insn.y_size || c < insn.x_pad_left ||
                         c >= insn.x_pad_left + insn.x_size;
        const uint8_t* src = nullptr;
        if (!pad) {
          const uint64_t entry = insn.dram_base + (r - insn.y_pad_top) * insn.x_stride + (c - insn.x_pad_left);
          src = &dram_[size_t(b)][dramOffset(b, entry, m)];
        }
        loadEntry(m, sram, src);
      }
  }

  // One SRAM entry from DRAM bytes at `src`, or zeros when `src` is null.
  void loadEntry(Memory m, uint64_t e, const uint8_t* src) {
    switch (m) {
      case Memory::Uop: {
        uint32_t w = 0;
        for (int k = 0; k < 4 && src; ++k) w |= uint32_t(src[k]) << (8 * k);
        const uint32_t db = layout_.uopDstBits(), sb = layout_.uopSrcBits(), wb = layout_.uopWgtBits();
        uop_[e] = {w & ((1u << db) - 1), (w >> db) & ((1u << sb) - 1), (w >> (db + sb)) & ((1u << wb) - 1)};
        uop_ok_[e] = true;
        break;
      }
      case Memory::Input:
        for (uint32_t k = 0; k < B_ * BI_; ++k) inp_[e * B_ * BI_ + k] = src ? int8_t(src[k]) : 0;
        inp_ok_[e] = true;
        break;
      case Memory::Weight:
        for (uint32_t k = 0; k < BO_ * BI_; ++k) wgt_[e * BO_ * BI_ + k] = src ? int8_t(src[k]) : 0;
        wgt_ok_[e] = true;
        break;
      case Memory::Acc:
        for (uint32_t k = 0; k < B_ * BO_; ++k) {
          uint32_t v = 0;
          for (int byte = 0; byte < 4 && src; ++byte) v |= uint32_t(src[4 * k + byte]) << (8 * byte);
          acc_[e * B_ * BO_ + k] = int32_t(v);
        }
        acc_ok_[e] = true;  // OUT is not written by loads
        break;
      case Memory::Acc8:
        for (uint32_t k = 0; k < B_ * BO_; ++k) acc_[e * B_ * BO_ + k] = src ? int32_t(int8_t(src[k])) : 0;
        acc_ok_[e] = true;
        break;
      case Memory::Output: fail("LOAD into OUT");
    }
  }

  void store(const Instruction& insn, int b) {
    if (insn.memory == Memory::Input) {
      // STORE INP (inp_writeback): entry by entry into INP at the INP
      // index dram_base + r * x_stride + c (OUT and INP entries have one width).
      if (!cfg_.inp_writeback) fail("STORE INP on a config without inp_writeback");
      for (uint64_t r = 0; r < insn.y_size; ++r)
        for (uint64_t c = 0; c < insn.x_size; ++c) {
          const uint64_t sram = insn.sram_base + r * insn.x_size + c;
          checkIndex(sram, Memory::Output, "OUT");
          if (!out_ok_[sram]) fail("STORE reads OUT entry " + std::to_string(sram) + " that no GEMM/ALU wrote");
          const uint64_t e = insn.dram_base + r * insn.x_stride + c;
          checkIndex(e, Memory::Input, "INP");
          for (uint32_t k = 0; k < B_ * BI_; ++k) inp_[e * B_ * BI_ + k] = out_[sram * B_ * BO_ + k];
          inp_ok_[e] = true;
        }
      return;
    }
    if (insn.memory != Memory::Output) fail("STORE of a memory other than OUT");
    for (uint64_t r = 0; r < insn.y_size; ++r)
      for (uint64_t c = 0; c < insn.x_size; ++c) {
        const uint64_t sram = insn.sram_base + r * insn.x_size + c;
        checkIndex(sram, Memory::Output, "OUT");
        if (!out_ok_[sram]) fail("STORE reads OUT entry " + std::to_string(sram) + " that no GEMM/ALU wrote");
        const uint64_t off = dramOffset(b, insn.dram_base + r * insn.x_stride + c, Memory::Output);
        for (uint32_t k = 0; k < B_ * BO_; ++k) dram_[size_t(b)][off + k] = uint8_t(out_[sram * B_ * BO_ + k]);
      }
  }

  // Calls f(dst, src, wgt, first) for every step of the loop nest, in order;
  // `first` is true for the first micro-op of an iteration (u == uop_begin).
  template <class F>
  void loopNest(const Instruction& insn, F f) {
    if (insn.uop_begin > insn.uop_end || insn.uop_end > cfg_.depth(Memory::Uop)) fail("micro-op range outside UOP");
    for (uint64_t o = 0; o < insn.iter_out; ++o)
      for (uint64_t i = 0; i < insn.iter_in; ++i)
        for (uint32_t u = insn.uop_begin; u < insn.uop_end; ++u) {
          if (!uop_ok_[u]) fail("uses micro-op " + std::to_string(u) + " that was not loaded");
          f(uop_[u].dst + o * insn.dst_factor_out + i * insn.dst_factor_in,
            uop_[u].src + o * insn.src_factor_out + i * insn.src_factor_in,
            uop_[u].wgt + o * insn.wgt_factor_out + i * insn.wgt_factor_in, u == insn.uop_begin);
        }
  }

  void writeOut(uint64_t d) {
    for (uint32_t k = 0; k < B_ * BO_; ++k) out_[d * B_ * BO_ + k] = int8_t(uint8_t(uint32_t(acc_[d * B_ * BO_ + k])));
    out_ok_[d] = true;
  }

  // docs/isa.md, "SETREQ and the GEMM flag requant": each iteration's
  // micro-ops are one reduction that starts from the state's bias; every
  // micro-op writes its sum to ACC[d] and the state's op of it to OUT[d].
  void gemm(const Instruction& insn) {
    if (insn.requant) {
      if (!cfg_.gemm_requant) fail("GEMM requant on a config without the gemm_requant extension");
      if (insn.reset) fail("GEMM with both requant and reset");
    }
    loopNest(insn, [&](uint64_t d, uint64_t s, uint64_t w, bool first) {
      checkIndex(d, Memory::Acc, "dst");
      if (insn.requant) {
        checkIndex(s, Memory::Input, "src");
        checkIndex(w, Memory::Weight, "wgt");
        // The first micro-op does not read ACC[d]: the bias replaces it.
        if ((!first && !acc_ok_[d]) || !inp_ok_[s] || !wgt_ok_[w])
          fail("GEMM reads an entry the program did not write");
        if (!setreq_seen_ && !p_.uses_reset_requant)
          fail("requantising GEMM before any SETREQ: its result depends on the state earlier programs left");
        for (uint32_t bb = 0; bb < B_; ++bb)
          for (uint32_t n = 0; n < BO_; ++n) {
            const size_t lane = size_t(bb) * BO_ + n;
            int64_t sum = 0;
            for (uint32_t k = 0; k < BI_; ++k)
              sum += int64_t(inp_[(s * B_ + bb) * BI_ + k]) * int64_t(wgt_[(w * BO_ + n) * BI_ + k]);
            int32_t& a = acc_[d * B_ * BO_ + lane];
            const int64_t start = first ? int64_t(req_bias_[lane]) : int64_t(a);
            a = int32_t(uint32_t(uint64_t(start + sum)));
            const int32_t r = aluReference(req_op_, a, req_operand_[lane], req_imm_);
            out_[d * B_ * BO_ + lane] = int8_t(uint8_t(uint32_t(r)));
          }
        acc_ok_[d] = true;
        out_ok_[d] = true;
        return;
      }
      if (insn.reset) {
        for (uint32_t k = 0; k < B_ * BO_; ++k) acc_[d * B_ * BO_ + k] = 0;
        acc_ok_[d] = true;
      } else {
        checkIndex(s, Memory::Input, "src");
        checkIndex(w, Memory::Weight, "wgt");
        if (!acc_ok_[d] || !inp_ok_[s] || !wgt_ok_[w]) fail("GEMM reads an entry the program did not write");
        for (uint32_t bb = 0; bb < B_; ++bb)
          for (uint32_t n = 0; n < BO_; ++n) {
            int64_t sum = 0;
            for (uint32_t k = 0; k < BI_; ++k)
              sum += int64_t(inp_[(s * B_ + bb) * BI_ + k]) * int64_t(wgt_[(w * BO_ + n) * BI_ + k]);
            int32_t& a = acc_[(d * B_ + bb) * BO_ + n];
            a = int32_t(uint32_t(uint64_t(int64_t(a) + sum)));
          }
      }
      writeOut(d);
    });
  }

  // Written from the definition rather than as a shift register: output j of
  // a run completes at iteration n = taps-1 + j*stride, and window entry t is
  // the input of iteration n - t (zero before the run's first iteration).
  void dwgemm(const Instruction& insn) {
    if (cfg_.depthwise_taps == 0) fail("DWGEMM on a config without the depthwise_taps extension");
    if (insn.uop_begin > insn.uop_end || insn.uop_end > cfg_.depth(Memory::Uop)) fail("micro-op range outside UOP");
    if (insn.requant && !cfg_.gemm_requant) fail("DWGEMM requant on a config without the gemm_requant extension");
    if (insn.requant && !setreq_seen_ && !p_.uses_reset_requant)
      fail("requantising DWGEMM before any SETREQ: its result depends on the state earlier programs left");
    const uint64_t T = cfg_.depthwise_taps;
    for (uint32_t u = insn.uop_begin; u < insn.uop_end; ++u) {
      if (!uop_ok_[u]) fail("uses micro-op " + std::to_string(u) + " that was not loaded");
      for (uint64_t o = 0; o < insn.iter_out; ++o) {
        const uint64_t w = uop_[u].wgt + o * insn.wgt_factor_out;
        auto srcOf = [&](uint64_t n) { return uop_[u].src + o * insn.src_factor_out + n * insn.src_factor_in; };
        for (uint64_t n = 0; n < insn.iter_in; ++n) {  // every iteration reads INP and WGT
          checkIndex(srcOf(n), Memory::Input, "src");
          checkIndex(w, Memory::Weight, "wgt");
          if (!inp_ok_[srcOf(n)] || !wgt_ok_[w]) fail("DWGEMM reads an entry the program did not write");
        }
        for (uint64_t j = 0;; ++j) {
          const uint64_t n = insn.taps - 1 + j * insn.stride;
          if (n >= insn.iter_in) break;
          const uint64_t d = uop_[u].dst + o * insn.dst_factor_out + j * insn.dst_factor_in;
          checkIndex(d, Memory::Acc, "dst");
          // A requantising DWGEMM's first micro-op starts from the state's
          // bias (docs/isa.md) and does not read ACC[d].
          const bool first = insn.requant && u == insn.uop_begin;
          if (!acc_ok_[d] && !first) fail("DWGEMM accumulates into an entry the program did not write");
          for (uint32_t bb = 0; bb < B_; ++bb)
            for (uint32_t c = 0; c < BO_; ++c) {
              const uint64_t k = uint64_t(insn.lane_block) * BO_ + c;  // the input channel of lane c
              int64_t sum = 0;
              for (uint64_t t = 0; t < T && t <= n; ++t)
                sum += int64_t(inp_[(srcOf(n - t) * B_ + bb) * BI_ + k]) * int64_t(wgt_[(w * BO_ + t) * BI_ + k]);
              const size_t lane = size_t(bb) * BO_ + c;
              int32_t& a = acc_[d * B_ * BO_ + lane];
              const int64_t start = first ? int64_t(req_bias_[lane]) : int64_t(a);
              a = int32_t(uint32_t(uint64_t(start + sum)));
              if (insn.requant)
                out_[d * B_ * BO_ + lane] =
                    int8_t(uint8_t(uint32_t(aluReference(req_op_, a, req_operand_[lane], req_imm_))));
            }
          if (insn.requant) {
            acc_ok_[d] = true;
            out_ok_[d] = true;
          } else {
            writeOut(d);
          }
        }
      }
    }
  }

  void alu(const Instruction& insn) {
    loopNest(insn, [&](uint64_t d, uint64_t s, uint64_t, bool) {
      checkIndex(d, Memory::Acc, "dst");
      if (!insn.use_imm) checkIndex(s, Memory::Acc, "src");
      const bool bias = insn.bias_clear && !insn.use_imm;  // ACC[src+1] joins the first operand
      if (bias) checkIndex(s + 1, Memory::Acc, "src+1 (bias)");
      if (!acc_ok_[d] || (!insn.use_imm && !acc_ok_[s]) || (bias && !acc_ok_[s + 1]))
        fail("ALU reads an entry the program did not write");
      for (uint32_t k = 0; k < B_ * BO_; ++k) {
        const int32_t b = insn.use_imm ? insn.imm : acc_[s * B_ * BO_ + k];
        int32_t& a = acc_[d * B_ * BO_ + k];
        if (insn.bias_clear) {
          const uint32_t first = uint32_t(a) + (bias ? uint32_t(acc_[(s + 1) * B_ * BO_ + k]) : 0u);
          out_[d * B_ * BO_ + k] = int8_t(uint8_t(uint32_t(aluReference(insn.alu_op, int32_t(first), b, insn.imm))));
          a = 0;
        } else {
          a = aluReference(insn.alu_op, a, b, insn.imm);
        }
      }
      if (insn.bias_clear)
        out_ok_[d] = true;  // OUT holds the result, ACC the zero
      else
        writeOut(d);
    });
  }

  // SETREQ (docs/isa.md): copies the op, the immediate and two ACC entries,
  // the operand at sram_base and the bias after it.
  void setReq(const Instruction& insn) {
    if (!cfg_.gemm_requant) fail("SETREQ on a config without the gemm_requant extension");
    if (insn.alu_op != AluOp::Req && insn.alu_op != AluOp::FReq) fail("SETREQ with an op other than REQ and FREQ");
    if (insn.alu_op == AluOp::Req ? !cfg_.fused_requant : !cfg_.float_requant)
      fail("SETREQ with an op the config does not have");
    const uint64_t s = insn.sram_base;
    checkIndex(s, Memory::Acc, "operand");
    checkIndex(s + 1, Memory::Acc, "bias (sram_base+1)");
    if (!acc_ok_[s] || !acc_ok_[s + 1]) fail("SETREQ reads an entry the program did not write");
    req_op_ = insn.alu_op;
    req_imm_ = insn.imm;
    for (uint32_t k = 0; k < B_ * BO_; ++k) {
      req_operand_[k] = acc_[s * B_ * BO_ + k];
      req_bias_[k] = acc_[(s + 1) * B_ * BO_ + k];
    }
    setreq_seen_ = true;
  }

  const hw::HwConfig& cfg_;
  const RandomProgram& p_;
  hw::IsaLayout layout_;
  const uint32_t B_, BI_, BO_;
  std::string where_;
  std::vector<hw::Uop> uop_;
  std::vector<int8_t> inp_, wgt_, out_;
  std::vector<int32_t> acc_;
  std::vector<bool> uop_ok_, inp_ok_, wgt_ok_, acc_ok_, out_ok_;  // written by this program
  std::vector<std::vector<uint8_t>> dram_;
  uint32_t tokens_[4] = {0, 0, 0, 0};
  // The requantisation state of SETREQ, as after reset until the first one.
  AluOp req_op_ = AluOp::Req;
  int32_t req_imm_ = 0;
  std::vector<int32_t> req_operand_, req_bias_;
  bool setreq_seen_ = false;
};

}  // namespace

std::vector<std::vector<uint8_t>> referenceRun(const hw::HwConfig& cfg, const RandomProgram& program) {
  return Interpreter(cfg, program).run();
}

}  // namespace vdla::sim::progen
