#include "datapath.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "vdla/hw/error.h"
#include "vdla/hw/float_requant.h"

namespace vdla::sim {
namespace {

using hw::Memory;

// acc[b][o] += sum_k inp[b][k] * wgt[o][k]. The reduction width is a template
// parameter for the common sizes so that the compiler unrolls and vectorises it.
template <int BlockIn>
void gemmTile(int32_t* acc, const int8_t* inp, const int8_t* wgt, uint32_t batch, uint32_t block_out) {
  for (uint32_t b = 0; b < batch; ++b) {
    const int8_t* in_row = inp + b * BlockIn;
    int32_t* acc_row = acc + b * block_out;
    for (uint32_t o = 0; o < block_out; ++o) {
      const int8_t* w_row = wgt + o * BlockIn;
      int32_t sum = 0;
      for (int k = 0; k < BlockIn; ++k) sum += int32_t(in_row[k]) * int32_t(w_row[k]);
      acc_row[o] = int32_t(uint32_t(acc_row[o]) + uint32_t(sum));  // wraps like the hardware
    }
  }
}

void gemmTileGeneric(int32_t* acc, const int8_t* inp, const int8_t* wgt, uint32_t batch, uint32_t block_in,
                     uint32_t block_out) {
  for (uint32_t b = 0; b < batch; ++b)
    for (uint32_t o = 0; o < block_out; ++o) {
      int32_t sum = 0;
      for (uint32_t k = 0; k < block_in; ++k) sum += int32_t(inp[b * block_in + k]) * int32_t(wgt[o * block_in + k]);
      acc[b * block_out + o] = int32_t(uint32_t(acc[b * block_out + o]) + uint32_t(sum));
    }
}

using GemmTileFn = void (*)(int32_t*, const int8_t*, const int8_t*, uint32_t, uint32_t);

GemmTileFn specialisedGemmTile(uint32_t block_in) {
  switch (block_in) {
    case 4: return gemmTile<4>;
    case 8: return gemmTile<8>;
    case 16: return gemmTile<16>;
    case 32: return gemmTile<32>;
    case 64: return gemmTile<64>;
    default: return nullptr;
  }
}

int32_t clampShift(int32_t b) { return std::max(-31, std::min(31, b)); }

int32_t aluApply(hw::AluOp op, int32_t a, int32_t b, int32_t imm) {
  switch (op) {
    case hw::AluOp::Min: return std::min(a, b);
    case hw::AluOp::Max: return std::max(a, b);
    case hw::AluOp::Add: return int32_t(uint32_t(a) + uint32_t(b));
    case hw::AluOp::Mul: return int32_t(uint32_t(a) * uint32_t(b));
    case hw::AluOp::Shr: {
      int32_t s = clampShift(b);
      return s >= 0 ? (a >> s) : int32_t(uint32_t(a) << -s);
    }
    case hw::AluOp::Rshr: {
      int32_t s = clampShift(b);
      if (s <= 0) return s == 0 ? a : int32_t(uint32_t(a) << -s);
      return int32_t((int64_t(a) + (int64_t(1) << (s - 1))) >> s);
    }
    case hw::AluOp::Mov: return b;
    case hw::AluOp::Clip: {
      const int32_t lo = int8_t(b & 0xff), hi = int8_t((b >> 8) & 0xff);
      return std::min(std::max(a, lo), hi);
    }
    case hw::AluOp::MulShr: {
      // |a * m| < 2^56, so the product and the rounding term fit int64.
      const int64_t m = b >> 6;
      const int s = b & 63;
      const int64_t p = int64_t(a) * m + (s > 0 ? int64_t(1) << (s - 1) : 0);
      return int32_t(uint32_t(uint64_t(p >> s)));
    }
    case hw::AluOp::Req:  // MULSHR by b, then CLIP with the instruction's bounds
      return aluApply(hw::AluOp::Clip, aluApply(hw::AluOp::MulShr, a, b, imm), imm, imm);
    case hw::AluOp::FReq: return hw::floatRequant(a, uint32_t(b), imm);  // b a binary32 scale, imm the zero point
  }
  return a;
}

std::string hexRange(uint64_t addr, uint64_t bytes) {
  std::ostringstream s;
  s << "[0x" << std::hex << addr << ", 0x" << addr + bytes << ")";
  return s.str();
}

}  // namespace

Datapath::Datapath(const hw::HwConfig& cfg, Dram& dram)
    : cfg_(cfg),
      layout_(cfg),
      dram_(dram),
      inp_entry_(cfg.batch * cfg.block_in),
      wgt_entry_(cfg.block_out * cfg.block_in),
      acc_entry_(cfg.batch * cfg.block_out),
      out_entry_(cfg.batch * cfg.block_out),
      uop_(cfg.depth(Memory::Uop)),
      inp_(size_t(cfg.depth(Memory::Input)) * inp_entry_),
      wgt_(size_t(cfg.depth(Memory::Weight)) * wgt_entry_),
      out_(size_t(cfg.depth(Memory::Output)) * out_entry_),
      acc_(size_t(cfg.depth(Memory::Acc)) * acc_entry_),
      req_operand_(acc_entry_, 0),
      req_bias_(acc_entry_, 0) {}

void Datapath::execute(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats,
                       const std::atomic<bool>* cancel) {
  cancel_ = cancel;
  switch (insn.opcode) {
    case hw::Opcode::Load: load(insn, where, stats); break;
    case hw::Opcode::Store: store(insn, where, stats); break;
    case hw::Opcode::Gemm: gemm(insn, where, stats); break;
    case hw::Opcode::Alu: alu(insn, where, stats); break;
    case hw::Opcode::DwGemm: dwgemm(insn, where, stats); break;
    case hw::Opcode::SetReq: setReq(insn, where); break;
    case hw::Opcode::Finish: break;
  }
}

const uint8_t* Datapath::dramRange(uint64_t entry_index, uint64_t entries, Memory m, const std::string& where) {
  uint64_t bytes = entries * cfg_.entryBytes(m);
  uint64_t addr = entry_index * cfg_.entryBytes(m);
  const uint8_t* p = dram_.map(addr, bytes);
  if (!p)
    throw Error(where + ": DRAM range " + hexRange(addr, bytes) + " (" + hw::memoryName(m) + " entry " +
                std::to_string(entry_index) + ", " + std::to_string(entries) +
                " entries) is not inside an allocated buffer");
  return p;
}

void Datapath::load(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats) {
  const Memory mem = insn.memory;
  const uint64_t rows = uint64_t(insn.y_pad_top) + insn.y_size + insn.y_pad_bottom;
  const uint64_t cols = uint64_t(insn.x_pad_left) + insn.x_size + insn.x_pad_right;
  const uint64_t depth = cfg_.depth(mem);
  if (uint64_t(insn.sram_base) + rows * cols > depth)
    throw Error(where + ": writes " + hw::memoryName(mem) + " entries [" + std::to_string(insn.sram_base) + ", " +
                std::to_string(insn.sram_base + rows * cols) + ") but the memory has " + std::to_string(depth) +
                " entries");
  const uint32_t dram_entry = cfg_.entryBytes(mem);
  stats.loads_by_memory[int(mem)]++;
  stats.dram_bytes_read[int(mem)] += uint64_t(insn.y_size) * insn.x_size * dram_entry;
  stats.padding_entries += rows * cols - uint64_t(insn.y_size) * insn.x_size;

  // Copies `count` DRAM entries into SRAM entry `dst`, or zero-fills them when
  // `src` is null (padding).
  auto fill = [&](uint64_t dst, const uint8_t* src, uint64_t count) {
    switch (mem) {
      case Memory::Uop:
        for (uint64_t i = 0; i < count; ++i) {
          uint32_t word = 0;
          if (src) std::memcpy(&word, src + 4 * i, 4);
          uop_[dst + i] = layout_.decodeUop(word);
        }
        break;
      case Memory::Input:
        if (src)
          std::memcpy(&inp_[dst * inp_entry_], src, count * inp_entry_);
        else
          std::fill_n(&inp_[dst * inp_entry_], count * inp_entry_, 0);
        break;
      case Memory::Weight:
        if (src)
          std::memcpy(&wgt_[dst * wgt_entry_], src, count * wgt_entry_);
        else
          std::fill_n(&wgt_[dst * wgt_entry_], count * wgt_entry_, 0);
        break;
      case Memory::Acc:
        if (src)
          std::memcpy(&acc_[dst * acc_entry_], src, count * acc_entry_ * 4);  // little-endian int32
        else
          std::fill_n(&acc_[dst * acc_entry_], count * acc_entry_, 0);
        break;
      case Memory::Acc8:
        for (uint64_t i = 0; i < count * acc_entry_; ++i)
          acc_[dst * acc_entry_ + i] = src ? int32_t(int8_t(src[i])) : 0;
        break;
      case Memory::Output: throw Error(where + ": LOAD cannot write the OUT memory");
    }
  };

  uint64_t dst = insn.sram_base;
  for (uint64_t r = 0; r < rows; ++r) {
    bool pad_row = r < insn.y_pad_top || r >= insn.y_pad_top + insn.y_size;
    if (pad_row || insn.x_size == 0) {
      fill(dst, nullptr, cols);
    } else {
      uint64_t src_entry = insn.dram_base + (r - insn.y_pad_top) * uint64_t(insn.x_stride);
      const uint8_t* src = dramRange(src_entry, insn.x_size, mem, where);
      fill(dst, nullptr, insn.x_pad_left);
      fill(dst + insn.x_pad_left, src, insn.x_size);
      fill(dst + insn.x_pad_left + insn.x_size, nullptr, insn.x_pad_right);
    }
    dst += cols;
  }
}

void Datapath::store(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats) {
  const uint64_t entries = uint64_t(insn.y_size) * insn.x_size;
  const uint64_t depth = cfg_.depth(Memory::Output);
  if (insn.sram_base + entries > depth)
    throw Error(where + ": reads OUT entries [" + std::to_string(insn.sram_base) + ", " +
                std::to_string(insn.sram_base + entries) + ") but the memory has " + std::to_string(depth) +
                " entries");
  const uint32_t entry_bytes = cfg_.entryBytes(Memory::Output);
  if (insn.memory == Memory::Input) {
    // STORE INP (inp_writeback): the rows land in INP, `dram_base` being the
    // INP index of the first entry; OUT and INP entries have one width. Each
    // row is checked before it is written, as the hardware does (the rows
    // before a failing one stay written; INP is on chip, so DRAM is the same).
    if (entries == 0) return;
    const uint64_t inp_depth = cfg_.depth(Memory::Input);
    for (uint64_t r = 0; r < insn.y_size; ++r) {
      const uint64_t row = insn.dram_base + r * insn.x_stride;
      if (row + insn.x_size > inp_depth)
        throw Error(where + ": writes INP entries [" + std::to_string(row) + ", " + std::to_string(row + insn.x_size) +
                    ") but the memory has " + std::to_string(inp_depth) + " entries");
      std::memcpy(&inp_[(insn.dram_base + r * insn.x_stride) * inp_entry_],
                  &out_[(insn.sram_base + r * insn.x_size) * out_entry_], size_t(insn.x_size) * entry_bytes);
    }
    return;
  }
  for (uint64_t r = 0; r < insn.y_size; ++r) {
    if (insn.x_size == 0) break;
    uint64_t dst_entry = insn.dram_base + r * uint64_t(insn.x_stride);
    uint8_t* dst = const_cast<uint8_t*>(dramRange(dst_entry, insn.x_size, Memory::Output, where));
    std::memcpy(dst, &out_[(insn.sram_base + r * insn.x_size) * out_entry_], size_t(insn.x_size) * entry_bytes);
  }
  stats.dram_bytes_written += entries * entry_bytes;
}

void Datapath::checkLoopNest(const hw::Instruction& insn, const std::string& where) const {
  const uint32_t uop_depth = cfg_.depth(Memory::Uop);
  if (insn.uop_begin > insn.uop_end || insn.uop_end > uop_depth)
    throw Error(where + ": micro-op range [" + std::to_string(insn.uop_begin) + ", " + std::to_string(insn.uop_end) +
                ") is not inside the micro-op memory of " + std::to_string(uop_depth) + " entries");
  if (insn.uop_begin == insn.uop_end || insn.iter_out == 0 || insn.iter_in == 0) return;
  uint64_t max_dst = 0, max_src = 0, max_wgt = 0;
  for (uint32_t u = insn.uop_begin; u < insn.uop_end; ++u) {
    max_dst = std::max<uint64_t>(max_dst, uop_[u].dst);
    max_src = std::max<uint64_t>(max_src, uop_[u].src);
    max_wgt = std::max<uint64_t>(max_wgt, uop_[u].wgt);
  }
  // Factors are unsigned, so the last iteration reaches the largest index.
  const uint64_t o = insn.iter_out - 1, i = insn.iter_in - 1;
  max_dst += o * insn.dst_factor_out + i * insn.dst_factor_in;
  max_src += o * insn.src_factor_out + i * insn.src_factor_in;
  max_wgt += o * insn.wgt_factor_out + i * insn.wgt_factor_in;
  auto check = [&](uint64_t max_index, Memory m, const char* role) {
    if (max_index >= cfg_.depth(m))
      throw Error(where + ": " + role + " index reaches " + std::to_string(max_index) + " but the " +
                  hw::memoryName(m) + " memory has " + std::to_string(cfg_.depth(m)) + " entries");
  };
  if (insn.opcode == hw::Opcode::DwGemm) {
    // Every iteration reads INP and WGT (the weight steps only with o); only
    // the iterations that complete an output write ACC.
    max_wgt -= i * insn.wgt_factor_in;
    check(max_src, Memory::Input, "src (input)");
    check(max_wgt, Memory::Weight, "wgt (weight)");
    const uint64_t writes = hw::dwgemmWritesPerRun(insn);
    if (writes) {
      max_dst -= i * insn.dst_factor_in;
      max_dst += (writes - 1) * insn.dst_factor_in;
      check(max_dst, Memory::Acc, "dst (accumulator)");
    }
    return;
  }
  check(max_dst, Memory::Acc, "dst (accumulator)");
  if (insn.opcode == hw::Opcode::Gemm) {
    if (!insn.reset) {
      check(max_src, Memory::Input, "src (input)");
      check(max_wgt, Memory::Weight, "wgt (weight)");
    }
  } else if (!insn.use_imm) {
    check(max_src, Memory::Acc, "src (accumulator)");
    if (insn.bias_clear) check(max_src + 1, Memory::Acc, "src+1 (bias)");
  }
}

void Datapath::checkCancel(const std::string& where) const {
  if (cancel_ && cancel_->load(std::memory_order_relaxed)) throw Error("run cancelled during " + where);
}

void Datapath::narrowToOutput(uint32_t acc_index) {
  const int32_t* a = &acc_[size_t(acc_index) * acc_entry_];
  int8_t* o = &out_[size_t(acc_index) * out_entry_];
  for (uint32_t e = 0; e < out_entry_; ++e) o[e] = int8_t(uint8_t(uint32_t(a[e]) & 0xff));  // truncation
}

void Datapath::writeOutput(uint32_t acc_index, bool requant) {
  if (!requant) return narrowToOutput(acc_index);
  const int32_t* a = &acc_[size_t(acc_index) * acc_entry_];
  int8_t* o = &out_[size_t(acc_index) * out_entry_];
  for (uint32_t e = 0; e < out_entry_; ++e)
    o[e] = int8_t(uint8_t(uint32_t(aluApply(req_op_, a[e], req_operand_[e], req_imm_)) & 0xff));
}

void Datapath::gemm(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats) {
  checkLoopNest(insn, where);
  const uint64_t uops = insn.uop_end - insn.uop_begin;
  const uint64_t iterations = uint64_t(insn.iter_out) * insn.iter_in * uops;
  stats.gemm_uop_iterations += iterations;
  if (!insn.reset) stats.gemm_macs += iterations * cfg_.macsPerCycle();
  const GemmTileFn tile = specialisedGemmTile(cfg_.block_in);
  for (uint32_t o = 0; o < insn.iter_out; ++o) {
    for (uint32_t i = 0; i < insn.iter_in; ++i) {
      checkCancel(where);
      const uint32_t dst_off = o * insn.dst_factor_out + i * insn.dst_factor_in;
      const uint32_t src_off = o * insn.src_factor_out + i * insn.src_factor_in;
      const uint32_t wgt_off = o * insn.wgt_factor_out + i * insn.wgt_factor_in;
      for (uint32_t u = insn.uop_begin; u < insn.uop_end; ++u) {
        const hw::Uop& uop = uop_[u];
        const uint32_t dst = uop.dst + dst_off;
        int32_t* acc = &acc_[size_t(dst) * acc_entry_];
        // requant: the iteration's first micro-op starts from the bias.
        if (insn.requant && u == insn.uop_begin) std::copy(req_bias_.begin(), req_bias_.end(), acc);
        if (insn.reset) {
          std::fill_n(acc, acc_entry_, 0);
        } else {
          const int8_t* inp = &inp_[size_t(uop.src + src_off) * inp_entry_];
          const int8_t* wgt = &wgt_[size_t(uop.wgt + wgt_off) * wgt_entry_];
          if (tile)
            tile(acc, inp, wgt, cfg_.batch, cfg_.block_out);
          else
            gemmTileGeneric(acc, inp, wgt, cfg_.batch, cfg_.block_in, cfg_.block_out);
        }
        writeOutput(dst, insn.requant);
      }
    }
  }
}

void Datapath::dwgemm(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats) {
  checkLoopNest(insn, where);
  const uint64_t uops = insn.uop_end - insn.uop_begin;
  stats.gemm_uop_iterations += uint64_t(insn.iter_out) * insn.iter_in * uops;
  stats.gemm_macs += hw::gemmMacs(insn, cfg_);
  // window[t]: the input read t iterations ago in this run (t = 0 the newest).
  const uint32_t T = cfg_.depthwise_taps, E = inp_entry_, N = cfg_.block_out;
  std::vector<int8_t> window(size_t(T) * E);
  for (uint32_t u = insn.uop_begin; u < insn.uop_end; ++u) {
    const hw::Uop& uop = uop_[u];
    for (uint32_t o = 0; o < insn.iter_out; ++o) {
      checkCancel(where);
      std::fill(window.begin(), window.end(), int8_t(0));
      const int8_t* wgt = &wgt_[size_t(uop.wgt + o * insn.wgt_factor_out) * wgt_entry_];
      uint32_t j = 0;
      for (uint32_t i = 0; i < insn.iter_in; ++i) {
        std::memmove(window.data() + E, window.data(), size_t(T - 1) * E);
        std::memcpy(window.data(), &inp_[size_t(uop.src + o * insn.src_factor_out + i * insn.src_factor_in) * E], E);
        if (i + 1 < insn.taps || (i + 1 - insn.taps) % insn.stride != 0) continue;
        const uint32_t dst = uop.dst + o * insn.dst_factor_out + j++ * insn.dst_factor_in;
        int32_t* acc = &acc_[size_t(dst) * acc_entry_];
        // requant: the first micro-op's writes start from the bias, as a
        // requantising GEMM's.
        const bool from_bias = insn.requant && u == insn.uop_begin;
        // Input channel k = lane_block*block_out + c -> accumulator lane c.
        for (uint32_t b = 0; b < cfg_.batch; ++b)
          for (uint32_t c = 0; c < N; ++c) {
            const uint32_t k = insn.lane_block * N + c, e = b * N + c;
            int32_t sum = 0;
            for (uint32_t t = 0; t < T; ++t)
              sum +=
                  int32_t(window[size_t(t) * E + b * cfg_.block_in + k]) * int32_t(wgt[size_t(t) * cfg_.block_in + k]);
            const uint32_t start = from_bias ? uint32_t(req_bias_[e]) : uint32_t(acc[e]);
            acc[e] = int32_t(start + uint32_t(sum));
          }
        writeOutput(dst, insn.requant);
      }
    }
  }
}

// SETREQ copies its operand and bias entries; GEMMs with requant use them.
void Datapath::setReq(const hw::Instruction& insn, const std::string& where) {
  const uint64_t depth = cfg_.depth(Memory::Acc);
  if (uint64_t(insn.sram_base) + 1 >= depth)
    throw Error(where + ": SETREQ reads ACC entries " + std::to_string(insn.sram_base) + " and " +
                std::to_string(uint64_t(insn.sram_base) + 1) + " (operand and bias) but the memory has " +
                std::to_string(depth) + " entries");
  req_op_ = insn.alu_op;
  req_imm_ = insn.imm;
  std::copy_n(&acc_[size_t(insn.sram_base) * acc_entry_], acc_entry_, req_operand_.begin());
  std::copy_n(&acc_[size_t(insn.sram_base + 1) * acc_entry_], acc_entry_, req_bias_.begin());
}

// bias_clear: op(ACC[dst] + ACC[src+1], b) goes to OUT[dst] only; ACC[dst]
// becomes zero. Each lane reads its operands before it writes, so dst may be
// src or src+1.
void Datapath::aluBiasClear(const hw::Instruction& insn, uint32_t dst, uint32_t src) {
  int32_t* a = &acc_[size_t(dst) * acc_entry_];
  int8_t* out = &out_[size_t(dst) * out_entry_];
  for (uint32_t e = 0; e < acc_entry_; ++e) {
    int32_t result;
    if (insn.use_imm) {
      result = aluApply(insn.alu_op, a[e], insn.imm, insn.imm);
    } else {
      const int32_t b = acc_[size_t(src) * acc_entry_ + e], bias = acc_[size_t(src + 1) * acc_entry_ + e];
      result = aluApply(insn.alu_op, int32_t(uint32_t(a[e]) + uint32_t(bias)), b, insn.imm);
    }
    a[e] = 0;
    if (e < out_entry_) out[e] = int8_t(uint8_t(uint32_t(result) & 0xff));  // truncation, as narrowToOutput
  }
}

void Datapath::alu(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats) {
  checkLoopNest(insn, where);
  const uint64_t uops = insn.uop_end - insn.uop_begin;
  stats.alu_element_ops += uint64_t(insn.iter_out) * insn.iter_in * uops * acc_entry_;
  for (uint32_t o = 0; o < insn.iter_out; ++o) {
    for (uint32_t i = 0; i < insn.iter_in; ++i) {
      checkCancel(where);
      for (uint32_t u = insn.uop_begin; u < insn.uop_end; ++u) {
        const uint32_t dst = uop_[u].dst + o * insn.dst_factor_out + i * insn.dst_factor_in;
        const uint32_t src = uop_[u].src + o * insn.src_factor_out + i * insn.src_factor_in;
        int32_t* a = &acc_[size_t(dst) * acc_entry_];
        if (insn.bias_clear) {
          aluBiasClear(insn, dst, src);
          continue;
        }
        if (insn.use_imm) {
          for (uint32_t e = 0; e < acc_entry_; ++e) a[e] = aluApply(insn.alu_op, a[e], insn.imm, insn.imm);
        } else {
          const int32_t* b = &acc_[size_t(src) * acc_entry_];
          for (uint32_t e = 0; e < acc_entry_; ++e) a[e] = aluApply(insn.alu_op, a[e], b[e], insn.imm);
        }
        narrowToOutput(dst);
      }
    }
  }
}

}  // namespace vdla::sim
