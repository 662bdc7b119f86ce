// The random program generator. Overview:
//
//  * Working windows: each on-chip memory gets a random window (at the bottom,
//    at the top so that the high index bits are used, or anywhere) that every
//    access stays inside. A prologue of randomly shaped, padded LOADs defines
//    the INP, WGT and ACC windows, so that later instructions only ever read
//    entries this program wrote. OUT entries become defined when a GEMM or ALU
//    writes them (LOAD ACC does not write OUT); STOREs read only those.
//  * Hazards: for INP/WGT entries the last writing LOAD and the last reading
//    GEMM, for OUT entries the last writing GEMM/ALU and the last reading STORE
//    are remembered (as indices in their module's stream). An instruction that
//    must come after one of another module needs a token chain from it; vector
//    clocks tell whether the tokens it already inherits are enough.
//  * Tokens: the generator keeps, for each queue, the tokens pushed and not
//    yet popped in program order, each with the vector clock of its pusher. To
//    order X after instruction p of module P, X pops the first pending token
//    pushed at or after p; older pending tokens are popped by NOPs first; if
//    none is recent enough, P's last instruction gets a push flag added (when
//    the queue had room at that point) or a NOP of P pushes one. Every pop thus
//    takes a token pushed earlier in program order and every push has room in
//    program order, which rules out deadlock (see progen.h).
//  * Random extras: voluntary pushes/pops, bursts in which one producer keeps
//    a queue full, NOPs of every zero-size form, a final drain of all tokens.
//  * gemm_requant: SETREQ reads an operand/bias pair of ACC entries (often
//    loaded just before it from pairs of requantisation parameters appended
//    to the "acc" buffer), GEMMs carry requant (never with reset), with
//    micro-op runs that share one dst (the compiler's reduction) as well as
//    runs whose dst differ. Every random draw for the extension is made only
//    on configs that have it, so that other configs keep their programs.
#include <algorithm>
#include <cmath>
#include <deque>
#include <set>

#include "rng.h"
#include "tokens.h"
#include "vdla/hw/error.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"
#include "vdla/sim/progen.h"

namespace vdla::sim::progen {
namespace {

using hw::AluOp;
using hw::Instruction;
using hw::Memory;
using hw::Opcode;

// Buffer order of every generated program.
enum BufferId { kUopBuf = 0, kInpBuf, kWgtBuf, kAccBuf, kAcc8Buf, kOutBuf, kNumBuffers };

int bufferFor(Memory m) {
  switch (m) {
    case Memory::Uop: return kUopBuf;
    case Memory::Input: return kInpBuf;
    case Memory::Weight: return kWgtBuf;
    case Memory::Acc: return kAccBuf;
    case Memory::Acc8: return kAcc8Buf;
    case Memory::Output: return kOutBuf;
  }
  return -1;
}

struct Window {
  uint32_t base = 0, size = 0;
  uint32_t end() const { return base + size; }
  bool contains(uint64_t v) const { return v >= base && v < end(); }
};

// Hazard state of an entry shared by two modules (INP/WGT: load writes,
// compute reads; OUT: compute writes, store reads). Indices are positions in
// the writer's / reader's instruction stream, -1 for none.
struct SharedEntry {
  bool defined = false;
  int64_t writer = -1, reader = -1;
  // INP's writer is the load module, or the store module for STORE INP
  // (inp_writeback).
  int writer_module = kLoadModule;
};

struct Shape {
  uint32_t y = 0, x = 0, stride = 0;
  hw::Padding pad;
  uint64_t rows() const { return uint64_t(pad.top) + y + pad.bottom; }
  uint64_t cols() const { return uint64_t(pad.left) + x + pad.right; }
  uint64_t entries() const { return rows() * cols(); }
  uint64_t span() const { return (y == 0 || x == 0) ? 0 : uint64_t(y - 1) * stride + x; }
};

enum class Kind { LoadUop, LoadWgt, LoadInp, LoadAcc, LoadAcc8, Store, Gemm, DwGemm, Alu, Nop, SetReq };

class Generator {
 public:
  Generator(const hw::HwConfig& cfg, uint64_t seed, const ProgenOptions& opts)
      : cfg_(cfg), opts_(opts), rng_(seed), layout_(cfg) {
    prog_.seed = seed;
    prog_.config_name = cfg.name;
    const double s = opts.size_scale;
    // Transfer sizes stay within the config's y_size/x_size fields.
    xfer_max_ = uint32_t((uint64_t(1) << cfg.xfer_size_bits) - 1);
    max_x_ = std::min(uint32_t(std::max(1.0, std::round(6 * s))), xfer_max_);
    max_y_ = std::min(uint32_t(std::max(1.0, std::round(3 * s))), xfer_max_);
    max_iter_ = uint32_t(std::min<double>(std::max(1.0, std::round(4 * s)), double((1u << cfg.loop_iter_bits) - 1)));
    max_uops_ = uint32_t(std::max(1.0, std::round(4 * s)));
    token_depth_ = cfg.token_queue_depth;
    if (cfg.gemm_requant) {
      // The ops SETREQ may choose (REQ exists wherever gemm_requant does).
      for (AluOp op : {AluOp::Req, AluOp::FReq})
        if (int(op) < hw::numAluOps(cfg) && (opts.alu_ops & (1u << int(op)))) setreq_ops_.push_back(op);
    }
  }

  RandomProgram run() {
    setUpWindows();
    setUpBuffers();
    prologue();
    body();
    finish();
    prog_.uops = table_;
    return std::move(prog_);
  }

 private:
  // ---------------------------------------------------------------- set-up
  Window pickWindow(uint32_t depth) {
    const uint32_t size = uint32_t(std::min<double>(depth, std::max(2.0, std::round(32 * opts_.size_scale))));
    switch (rng_.below(3)) {
      case 0: return {0, size};
      case 1: return {depth - size, size};  // the top of the memory: high index bits
      default: return {uint32_t(rng_.below(depth - size + 1)), size};
    }
  }

  void setUpWindows() {
    uop_win_ = pickWindow(cfg_.depth(Memory::Uop));
    inp_win_ = pickWindow(cfg_.depth(Memory::Input));
    wgt_win_ = pickWindow(cfg_.depth(Memory::Weight));
    acc_win_ = pickWindow(cfg_.depth(Memory::Acc));
    uop_sram_.assign(cfg_.depth(Memory::Uop), -1);
    inp_.assign(cfg_.depth(Memory::Input), {});
    wgt_.assign(cfg_.depth(Memory::Weight), {});
    out_.assign(cfg_.depth(Memory::Acc), {});
    acc_defined_.assign(cfg_.depth(Memory::Acc), false);
  }

  // Mostly near the start of the window, so that loop factors have room.
  uint32_t pickIn(const Window& w) {
    return w.base + uint32_t(rng_.chance(0.7) ? rng_.below(std::max<uint32_t>(1, w.size / 4)) : rng_.below(w.size));
  }
  uint32_t anyValue(uint32_t bits) { return uint32_t(rng_.below(uint64_t(1) << bits)); }

  std::vector<uint8_t> randomBytes(uint64_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = uint8_t(rng_.next());
    return v;
  }

  void setUpBuffers() {
    // Micro-op table: runs of GEMM-ready, ALU-ready and reset-only micro-ops.
    const uint32_t table_size = uint32_t(std::max(8.0, std::round(24 * opts_.size_scale)));
    while (table_.size() < table_size) {
      const uint64_t kind = rng_.below(3), run = rng_.range(1, 6);
      // Some ALU runs apply one operand vector to several destinations (a
      // parameter shared by micro-ops: the ALU's operand register case).
      const int64_t shared_src = kind == 1 && rng_.chance(0.3) ? int64_t(pickIn(acc_win_)) : -1;
      // With gemm_requant, some GEMM runs accumulate into one dst: a
      // requantising GEMM's iteration over them is one whole reduction.
      const int64_t shared_dst = cfg_.gemm_requant && kind == 0 && rng_.chance(0.5) ? int64_t(pickIn(acc_win_)) : -1;
      for (uint64_t i = 0; i < run && table_.size() < table_size; ++i) {
        hw::Uop u;
        u.dst = shared_dst >= 0 ? uint32_t(shared_dst) : pickIn(acc_win_);
        if (kind == 0) {
          u.src = pickIn(inp_win_);
          u.wgt = pickIn(wgt_win_);
        } else if (kind == 1) {
          u.src = shared_src >= 0 ? uint32_t(shared_src) : pickIn(acc_win_);
          u.wgt = anyValue(layout_.uopWgtBits());  // ALU ignores wgt
        } else {
          u.src = anyValue(layout_.uopSrcBits());
          u.wgt = anyValue(layout_.uopWgtBits());
        }
        table_.push_back(u);
      }
    }
    auto entries = [&](const Window& w) { return uint64_t(w.size) + rng_.below(2 * uint64_t(w.size)) + 1; };
    prog_.buffers.resize(kNumBuffers);
    prog_.buffers[kUopBuf] = {"uop", Memory::Uop, false, hw::encodeMicroOps(layout_, table_)};
    prog_.buffers[kInpBuf] = {"inp", Memory::Input, false,
                              randomBytes(entries(inp_win_) * cfg_.entryBytes(Memory::Input))};
    prog_.buffers[kWgtBuf] = {"wgt", Memory::Weight, false,
                              randomBytes(entries(wgt_win_) * cfg_.entryBytes(Memory::Weight))};
    // Accumulators: a mix of full-range values (wrapping, MUL overflow) and
    // small ones (meaningful shift amounts for tensor SHR/RSHR).
    std::vector<uint8_t> acc = randomBytes(entries(acc_win_) * cfg_.entryBytes(Memory::Acc));
    for (size_t i = 0; i + 4 <= acc.size(); i += 4) {
      if (!rng_.chance(0.4)) continue;
      uint32_t v = uint32_t(int32_t(rng_.range(-40, 40)));
      for (int b = 0; b < 4; ++b) acc[i + b] = uint8_t(v >> (8 * b));
    }
    if (cfg_.gemm_requant) appendRequantParameters(acc);
    prog_.buffers[kAccBuf] = {"acc", Memory::Acc, false, std::move(acc)};
    prog_.buffers[kAcc8Buf] = {"acc8", Memory::Acc8, false,
                               randomBytes(entries(acc_win_) * cfg_.entryBytes(Memory::Acc8))};
    // Random initial contents, so that a byte a device should not have
    // written (or should have) shows up in the comparison.
    prog_.buffers[kOutBuf] = {
        "out", Memory::Output, true,
        randomBytes((2 * uint64_t(acc_win_.size) + rng_.below(acc_win_.size) + 1) * cfg_.entryBytes(Memory::Output))};
  }

  // gemm_requant: pairs of ACC entries (operand, bias) at the end of the
  // "acc" buffer that give requantised outputs across the int8 range rather
  // than mostly saturated ones: REQ operands m*64+s with m/2^s in [2^-12,
  // 2^-8] (a GEMM sum over one block of random int8 products is some 2^14),
  // FREQ scales in the same range, biases up to 2^15. Some lanes get a
  // negative multiplier or scale.
  void appendRequantParameters(std::vector<uint8_t>& acc) {
    const uint32_t lanes = cfg_.batch * cfg_.block_out;
    auto put = [&](uint32_t v) {
      for (int b = 0; b < 4; ++b) acc.push_back(uint8_t(v >> (8 * b)));
    };
    for (AluOp op : setreq_ops_) {
      std::vector<uint64_t>& pairs = op == AluOp::Req ? req_params_ : freq_params_;
      for (int pair = 0; pair < kRequantPairs; ++pair) {
        pairs.push_back(acc.size() / cfg_.entryBytes(Memory::Acc));
        for (uint32_t k = 0; k < lanes; ++k) {
          const bool negative = rng_.chance(0.1);
          if (op == AluOp::Req) {
            const int64_t shift = rng_.range(10, 26);
            int64_t m = int64_t(std::ldexp(1.0 + 15.0 * double(rng_.next() >> 11) * 0x1p-53, int(shift) - 12));
            m = std::clamp<int64_t>(negative ? -m : m, -(int64_t(1) << 25), (int64_t(1) << 25) - 1);
            put(uint32_t(int32_t(m * 64 + shift)));
          } else {
            const uint32_t exponent = uint32_t(127 - 12 + rng_.range(0, 3));
            put((negative ? 0x80000000u : 0u) | exponent << 23 | uint32_t(rng_.below(1u << 23)));
          }
        }
        for (uint32_t k = 0; k < lanes; ++k) put(uint32_t(int32_t(rng_.range(-(1 << 15), 1 << 15))));
      }
    }
  }

  uint64_t bufferEntries(int buffer) const {
    const ProgramBuffer& b = prog_.buffers[buffer];
    return b.init.size() / cfg_.entryBytes(b.memory);
  }

  // ---------------------------------------------------------------- tokens
  double pushProbability(int q) const { return q == burst_queue_ ? 1.0 : 0.12; }
  double popProbability(int q) const {
    if (q == burst_queue_) return pending_[q].size() >= token_depth_ ? 1.0 : 0.0;
    return 0.5;
  }

  // Appends an instruction. Pops the queues in `forced_pops` (which must hold a
  // token), pushes to those in `forced_pushes`, and with `voluntary` adds
  // random pops and pushes. Returns its index in its module's stream.
  int64_t place(Instruction insn, int buffer, const bool forced_pops[4], const bool forced_pushes[4], bool voluntary) {
    const int m = int(hw::moduleOf(insn));
    VectorClock vc = vc_now_[m];
    for (int q = 0; q < 4; ++q) {
      if (queueEnds(q).consumer != m) continue;
      bool pop = forced_pops[q] || (voluntary && !pending_[q].empty() && rng_.chance(popProbability(q)));
      if (!pop) continue;
      if (pending_[q].empty()) throw Error("progen internal error: pop from an empty token queue");
      vc.merge(pending_[q].front());
      pending_[q].pop_front();
      popFlag(insn, q) = true;
    }
    const int64_t index = int64_t(count_[m]++);
    vc.done[m] = count_[m];
    vc_now_[m] = vc;
    for (int q = 0; q < 4; ++q) {
      if (queueEnds(q).producer != m) continue;
      bool push = forced_pushes[q] || (voluntary && insn.opcode != Opcode::Finish &&
                                       pending_[q].size() < token_depth_ && rng_.chance(pushProbability(q)));
      if (push) {
        if (pending_[q].size() >= token_depth_) throw Error("progen internal error: push to a full token queue");
        pending_[q].push_back(vc);
        pushFlag(insn, q) = true;
      }
      count_after_last_producer_[q] = pending_[q].size();
    }
    last_pos_[m] = int64_t(prog_.instructions.size());
    prog_.instructions.push_back(insn);
    prog_.buffer_of.push_back(buffer);
    return index;
  }

  // `v` cut to what the config's iter_out/iter_in and imm fields can hold
  // (NOPs use small fixed values, which the narrowest fields cannot).
  uint32_t iterField(uint32_t v) const { return std::min(v, uint32_t((1u << cfg_.loop_iter_bits) - 1)); }
  int32_t clampImm(int64_t v) const {
    const int64_t hi = (int64_t(1) << (cfg_.alu_imm_bits - 1)) - 1;
    return int32_t(std::clamp(v, -hi - 1, hi));
  }

  // A token-only instruction of module m: a zero-size transfer or loop.
  Instruction nopFor(int m) {
    Instruction i;
    if (m == kLoadModule) {
      Memory mem = rng_.chance(0.5) ? Memory::Input : Memory::Weight;
      const Window& w = mem == Memory::Input ? inp_win_ : wgt_win_;
      i = rng_.chance(0.5) ? hw::makeLoad(mem, w.base, 0, 0, uint32_t(rng_.range(0, 3)), 1)
                           : hw::makeLoad(mem, w.base, 0, uint32_t(rng_.range(1, 3)), 0, 0);
    } else if (m == kStoreModule) {
      i = rng_.chance(0.5) ? hw::makeStore(acc_win_.base, 0, 0, uint32_t(rng_.range(0, 3)), 1)
                           : hw::makeStore(acc_win_.base, 0, uint32_t(rng_.range(1, 3)), 0, 0);
    } else {
      switch (rng_.below(4)) {
        case 0: {
          const Memory mems[] = {Memory::Uop, Memory::Acc, Memory::Acc8};
          Memory mem = mems[rng_.below(3)];
          i = hw::makeLoad(mem, mem == Memory::Uop ? uop_win_.base : acc_win_.base, 0, 0, 1, 1);
          break;
        }
        case 1:  // empty micro-op range
          i = hw::makeGemm({uop_win_.base, uop_win_.base, iterField(2), iterField(2)}, rng_.chance(0.5));
          if (cfg_.gemm_requant && !i.reset) i.requant = rng_.chance(0.5);
          break;
        case 2:  // zero iterations
          i = hw::makeGemm({uop_win_.base, uop_win_.base + 1, rng_.chance(0.5) ? 0u : iterField(3), 0}, false);
          if (i.iter_in == 0 && i.iter_out == 0) i.iter_in = 1;
          if (cfg_.gemm_requant) i.requant = rng_.chance(0.5);
          break;
        default:
          i = hw::makeAluImm(AluOp(rng_.below(hw::numAluOps(cfg_))),
                             {uop_win_.base, uop_win_.base + 1, 0, iterField(2)}, clampImm(rng_.range(-5, 5)));
          break;
      }
    }
    return i;
  }

  int bufferOfNop(const Instruction& i) const {
    return (i.opcode == Opcode::Load || i.opcode == Opcode::Store) ? bufferFor(i.memory) : -1;
  }

  void nop(int m, int pop_queue, int push_queue) {
    bool pops[4] = {}, pushes[4] = {};
    if (pop_queue >= 0) pops[pop_queue] = true;
    if (push_queue >= 0) pushes[push_queue] = true;
    Instruction i = nopFor(m);
    place(i, bufferOfNop(i), pops, pushes, false);
    prog_.nops++;
  }

  // Makes the front of queue q's pending tokens one pushed after the first
  // `need` instructions of the producer completed (see the file comment).
  void satisfy(int q, uint64_t need) {
    const int producer = queueEnds(q).producer, consumer = queueEnds(q).consumer;
    while (true) {
      auto& pend = pending_[q];
      size_t j = 0;
      while (j < pend.size() && pend[j].done[producer] < need) ++j;
      if (j < pend.size()) {
        for (size_t k = 0; k < j; ++k) nop(consumer, q, -1);
        return;
      }
      if (last_pos_[producer] >= 0) {
        Instruction& last = prog_.instructions[size_t(last_pos_[producer])];
        // Adding a push to the producer's last instruction raises the token
        // count from there on by one; it was count_after_last_producer_ there
        // and only falls afterwards (no other pushes since), so that is the
        // one point to check.
        if (last.opcode != Opcode::Finish && !pushes(last, q) && count_after_last_producer_[q] < token_depth_) {
          pushFlag(last, q) = true;
          pend.push_back(vc_now_[producer]);
          count_after_last_producer_[q]++;
          continue;
        }
      }
      if (pend.size() < token_depth_)
        nop(producer, -1, q);
      else
        nop(consumer, q, -1);  // drain an old token to make room
    }
  }

  // Appends `insn` after the token pops that order it after the first need[m]
  // instructions of every other module m.
  int64_t emit(const Instruction& insn, int buffer, const uint64_t need[3]) {
    const int m = int(hw::moduleOf(insn));
    bool pops[4] = {}, pushes_none[4] = {};
    uint64_t need_now[3] = {need[0], need[1], need[2]};
    // Load and store share no token queue (STORE INP writes INP, which the
    // load module writes too): the compute module passes the order on, a
    // NOP of it popping the producer's token first.
    for (int p = 0; p < 3; ++p) {
      if (p == m || p == kComputeModule || m == kComputeModule || need_now[p] <= vc_now_[m].done[p]) continue;
      if (need_now[p] > vc_now_[kComputeModule].done[p]) {
        satisfy(queueBetween(p, kComputeModule), need_now[p]);
        nop(kComputeModule, queueBetween(p, kComputeModule), -1);
      }
      need_now[kComputeModule] = std::max<uint64_t>(need_now[kComputeModule], count_[kComputeModule]);
      need_now[p] = 0;  // ordered through the compute module
    }
    for (int p = 0; p < 3; ++p) {
      if (p == m || need_now[p] <= vc_now_[m].done[p]) continue;
      const int q = queueBetween(p, m);
      if (q < 0) throw Error("progen internal error: a hazard between the load and store modules");
      satisfy(q, need_now[p]);
      pops[q] = true;
    }
    return place(insn, buffer, pops, pushes_none, true);
  }

  // ---------------------------------------------------------------- state
  static void internalCheck(bool ok, const char* what) {
    if (!ok) throw Error(std::string("progen internal error: ") + what);
  }

  std::vector<SharedEntry>& sharedOf(Memory m) { return m == Memory::Input ? inp_ : wgt_; }

  // Emits a LOAD or STORE and updates the hazard state from its fields.
  void emitTransfer(const Instruction& insn, int buffer) {
    uint64_t need[3] = {0, 0, 0};
    const uint64_t rows = uint64_t(insn.y_pad_top) + insn.y_size + insn.y_pad_bottom;
    const uint64_t cols = uint64_t(insn.x_pad_left) + insn.x_size + insn.x_pad_right;
    if (insn.opcode == Opcode::Store) {
      const uint64_t n = uint64_t(insn.y_size) * insn.x_size;
      for (uint64_t e = insn.sram_base; e < insn.sram_base + n; ++e) {
        internalCheck(out_[e].defined, "STORE of an undefined OUT entry");
        need[kComputeModule] = std::max<uint64_t>(need[kComputeModule], uint64_t(out_[e].writer + 1));
      }
      // STORE INP: after the last reader and the last writer of each INP
      // entry it overwrites.
      std::vector<uint64_t> inp_written;
      if (insn.memory == Memory::Input)
        for (uint64_t r = 0; r < insn.y_size; ++r)
          for (uint64_t c = 0; c < insn.x_size; ++c) inp_written.push_back(insn.dram_base + r * insn.x_stride + c);
      for (uint64_t e : inp_written) {
        need[kComputeModule] = std::max<uint64_t>(need[kComputeModule], uint64_t(inp_[e].reader + 1));
        need[inp_[e].writer_module] = std::max<uint64_t>(need[inp_[e].writer_module], uint64_t(inp_[e].writer + 1));
      }
      const int64_t idx = emit(insn, buffer, need);
      for (uint64_t e = insn.sram_base; e < insn.sram_base + n; ++e) out_[e].reader = idx;
      for (uint64_t e : inp_written) inp_[e] = {true, idx, -1, kStoreModule};
      if (!inp_written.empty()) prog_.stores_to_input++;
      return;
    }
    const Memory mem = insn.memory;
    if (mem == Memory::Input || mem == Memory::Weight) {
      auto& entries = sharedOf(mem);
      for (uint64_t e = insn.sram_base; e < insn.sram_base + rows * cols; ++e) {
        need[kComputeModule] = std::max<uint64_t>(need[kComputeModule], uint64_t(entries[e].reader + 1));
        need[entries[e].writer_module] =
            std::max<uint64_t>(need[entries[e].writer_module], uint64_t(entries[e].writer + 1));
      }
      const int64_t idx = emit(insn, buffer, need);
      for (uint64_t e = insn.sram_base; e < insn.sram_base + rows * cols; ++e) {
        entries[e].defined = true;
        entries[e].writer = idx;
        entries[e].writer_module = kLoadModule;
      }
      return;
    }
    // UOP, ACC and ACC8 belong to the compute module alone: no hazard.
    emit(insn, buffer, need);
    if (mem == Memory::Uop) {
      for (uint64_t r = 0; r < insn.y_size; ++r)
        for (uint64_t c = 0; c < insn.x_size; ++c)
          uop_sram_[insn.sram_base + r * cols + c] = int64_t(insn.dram_base + r * insn.x_stride + c);
    } else {
      for (uint64_t e = insn.sram_base; e < insn.sram_base + rows * cols; ++e) acc_defined_[e] = true;
    }
  }

  struct Touch {
    uint32_t dst, src, wgt;
    bool writes = true;  // false: a DWGEMM iteration that only fills the window
  };
  std::vector<Touch> touches(const Instruction& insn) const {
    std::vector<Touch> t;
    if (insn.opcode == Opcode::DwGemm) {  // u outermost; dst steps with the outputs
      for (uint32_t u = insn.uop_begin; u < insn.uop_end; ++u) {
        const hw::Uop& uop = table_[size_t(uop_sram_[u])];
        for (uint32_t o = 0; o < insn.iter_out; ++o)
          for (uint32_t i = 0, j = 0; i < insn.iter_in; ++i) {
            const bool writes = i + 1 >= insn.taps && (i + 1 - insn.taps) % insn.stride == 0;
            t.push_back({uop.dst + o * insn.dst_factor_out + j * insn.dst_factor_in,
                         uop.src + o * insn.src_factor_out + i * insn.src_factor_in, uop.wgt + o * insn.wgt_factor_out,
                         writes});
            j += writes;
          }
      }
      return t;
    }
    for (uint32_t o = 0; o < insn.iter_out; ++o)
      for (uint32_t i = 0; i < insn.iter_in; ++i)
        for (uint32_t u = insn.uop_begin; u < insn.uop_end; ++u) {
          const hw::Uop& uop = table_[size_t(uop_sram_[u])];
          t.push_back({uop.dst + o * insn.dst_factor_out + i * insn.dst_factor_in,
                       uop.src + o * insn.src_factor_out + i * insn.src_factor_in,
                       uop.wgt + o * insn.wgt_factor_out + i * insn.wgt_factor_in});
        }
    return t;
  }

  // Emits a GEMM or ALU and updates the hazard state.
  void emitLoop(const Instruction& insn) {
    const std::vector<Touch> t = touches(insn);
    const bool gemm = insn.opcode == Opcode::Gemm || insn.opcode == Opcode::DwGemm;
    const bool reads_inputs = gemm && !insn.reset;
    uint64_t need[3] = {0, 0, 0};
    for (const Touch& x : t) {
      if (!x.writes) {  // reads INP and WGT only
        internalCheck(inp_[x.src].defined && wgt_[x.wgt].defined, "DWGEMM reads an undefined entry");
        const int inp_writer = inp_[x.src].writer_module;
        need[inp_writer] = std::max<uint64_t>(need[inp_writer], uint64_t(inp_[x.src].writer + 1));
        need[kLoadModule] = std::max<uint64_t>(need[kLoadModule], uint64_t(wgt_[x.wgt].writer + 1));
        continue;
      }
      internalCheck(acc_win_.contains(x.dst), "accumulator index outside its window");
      if (reads_inputs) {
        internalCheck(inp_[x.src].defined && wgt_[x.wgt].defined && acc_defined_[x.dst],
                      "GEMM reads an undefined entry");
        const int inp_writer = inp_[x.src].writer_module;
        need[inp_writer] = std::max<uint64_t>(need[inp_writer], uint64_t(inp_[x.src].writer + 1));
        need[kLoadModule] = std::max<uint64_t>(need[kLoadModule], uint64_t(wgt_[x.wgt].writer + 1));
      }
      if (!gemm)
        internalCheck(acc_defined_[x.dst] && (insn.use_imm || acc_defined_[x.src]) &&
                          (!insn.bias_clear || insn.use_imm || acc_defined_[x.src + 1]),
                      "ALU reads an undefined entry");
      need[kStoreModule] = std::max<uint64_t>(need[kStoreModule], uint64_t(out_[x.dst].reader + 1));
    }
    const int64_t idx = emit(insn, -1, need);
    for (const Touch& x : t) {
      if (reads_inputs) inp_[x.src].reader = wgt_[x.wgt].reader = idx;
      if (!x.writes) continue;
      acc_defined_[x.dst] = true;
      out_[x.dst].defined = true;
      out_[x.dst].writer = idx;
    }
  }

  // ---------------------------------------------------------------- shapes
  // A 2-D shape of at most `max_entries` SRAM entries.
  Shape pickShape(Memory mem, uint64_t max_entries) {
    Shape s;
    s.y = rng_.smallSize(max_y_);
    s.x = rng_.smallSize(max_x_);
    const bool can_pad = opts_.padding && mem != Memory::Uop && mem != Memory::Output;
    if (can_pad && rng_.chance(0.35)) {
      const uint32_t pad_max = (1u << cfg_.pad_bits) - 1;
      auto side = [&]() { return rng_.chance(0.5) ? uint32_t(rng_.range(1, std::min<uint32_t>(2, pad_max))) : 0u; };
      s.pad = {side(), side(), side(), side()};
      if (rng_.chance(0.1)) {  // one wide side, up to the field's limit
        uint32_t wide = uint32_t(rng_.range(1, pad_max));
        switch (rng_.below(4)) {
          case 0: s.pad.top = wide; break;
          case 1: s.pad.bottom = wide; break;
          case 2: s.pad.left = wide; break;
          default: s.pad.right = wide; break;
        }
      }
      if (rng_.chance(0.05)) (rng_.chance(0.5) ? s.y : s.x) = 0;  // padding only, no DRAM read
    }
    if (s.entries() > max_entries) s.pad = {};
    while (s.entries() > max_entries) {
      if (s.x > 1)
        --s.x;
      else if (s.y > 1)
        --s.y;
      else {
        s.x = s.y = 0;
      }
    }
    return s;
  }

  // Chooses the stride and DRAM offset of a shape in a buffer of
  // `buffer_entries` entries: usually row after row, sometimes overlapping
  // rows (stride below x, even 0) or wide gaps.
  uint64_t pickDram(Shape& s, uint64_t buffer_entries) {
    const uint32_t stride_max = (1u << std::min<uint32_t>(cfg_.xfer_size_bits, 31)) - 1;
    const uint64_t r = rng_.below(10);
    if (r < 6)
      s.stride = s.x + uint32_t(rng_.below(3));
    else if (r < 8)
      s.stride = uint32_t(rng_.below(uint64_t(s.x) + 1));
    else
      s.stride = s.x + uint32_t(rng_.below(buffer_entries));
    s.stride = std::min(s.stride, stride_max);
    if (s.span() > buffer_entries) s.stride = s.x;
    internalCheck(s.span() <= buffer_entries, "transfer larger than its buffer");
    return rng_.below(buffer_entries - s.span() + 1);
  }

  Instruction loadFromShape(Memory mem, uint32_t sram_base, const Shape& s, uint64_t dram) {
    return hw::makeLoad(mem, sram_base, dram, s.y, s.x, s.stride, s.pad);
  }

  // ---------------------------------------------------------------- prologue
  void prologue() {
    std::vector<std::pair<Instruction, int>> chunks;
    auto cover = [&](const Window& w, const std::vector<Memory>& mems) {
      for (uint64_t off = 0; off < w.size;) {
        const Memory mem = mems[rng_.below(mems.size())];
        Shape s = pickShape(mem, w.size - off);
        if (s.entries() == 0) s = {1, 1, 1, {}};
        const int buf = bufferFor(mem);
        const uint64_t dram = pickDram(s, bufferEntries(buf));
        chunks.push_back({loadFromShape(mem, uint32_t(w.base + off), s, dram), buf});
        off += s.entries();
      }
    };
    const bool compute = opts_.ops & (kGemm | kAlu);
    if (opts_.ops & kGemm) {
      cover(inp_win_, {Memory::Input});
      cover(wgt_win_, {Memory::Weight});
    }
    if (compute) {
      std::vector<Memory> acc_mems;
      if (opts_.ops & kLoadAcc) acc_mems.push_back(Memory::Acc);
      if (opts_.ops & kLoadAcc8) acc_mems.push_back(Memory::Acc8);
      cover(acc_win_, acc_mems);
    }
    // Independent chunks (disjoint entries, nothing reads them yet), so any
    // order is valid: shuffle to interleave the modules.
    for (size_t i = chunks.size(); i > 1; --i) std::swap(chunks[i - 1], chunks[rng_.below(i)]);
    // The micro-op kernels come first in the compute stream (any position
    // before the first GEMM/ALU would do).
    if (compute) {
      const uint32_t n = std::min<uint32_t>(uop_win_.size, uint32_t(table_.size()));
      const uint64_t from = rng_.below(table_.size() - n + 1);
      // One row, split where it is longer than x_size can say.
      for (uint32_t done = 0; done < n;) {
        const uint32_t x = std::min(n - done, xfer_max_);
        emitTransfer(hw::makeLoad(Memory::Uop, uop_win_.base + done, from + done, 1, x, x), kUopBuf);
        done += x;
      }
    }
    for (const auto& [insn, buf] : chunks) emitTransfer(insn, buf);
  }

  // ---------------------------------------------------------------- body
  bool genLoad(Memory mem) {
    const Window& w = mem == Memory::Uop      ? uop_win_
                      : mem == Memory::Input  ? inp_win_
                      : mem == Memory::Weight ? wgt_win_
                                              : acc_win_;
    const int buf = bufferFor(mem);
    // Never more entries than the buffer holds (the micro-op table can be
    // smaller than the UOP window).
    Shape s = pickShape(mem, std::min<uint64_t>(w.size, bufferEntries(buf)));
    const uint64_t dram = pickDram(s, bufferEntries(buf));
    const uint32_t sram = w.base + uint32_t(rng_.below(w.size - s.entries() + 1));
    emitTransfer(loadFromShape(mem, sram, s, dram), buf);
    return true;
  }

  bool genStore() {
    Shape s;
    s.y = rng_.smallSize(max_y_);
    s.x = rng_.smallSize(max_x_);
    while (s.entries() > acc_win_.size) s.x > 1 ? --s.x : --s.y;
    const uint64_t n = s.entries();
    for (int attempt = 0; attempt < 8; ++attempt) {
      const uint32_t sram = acc_win_.base + uint32_t(rng_.below(acc_win_.size - n + 1));
      bool ok = true;
      for (uint64_t e = sram; e < sram + n && ok; ++e) ok = out_[e].defined;
      if (!ok) continue;
      // STORE INP (drawn only on configs with inp_writeback, so that other
      // configs keep their programs): rows into the INP window, usually
      // apart, sometimes overlapping (a later row overwrites).
      if (cfg_.inp_writeback && (opts_.ops & kGemm) && rng_.chance(0.35)) {
        Shape d = s;
        d.stride = rng_.chance(0.8) ? s.x + uint32_t(rng_.below(3)) : uint32_t(rng_.below(uint64_t(s.x) + 1));
        if (d.span() > inp_win_.size) d.stride = s.x;
        if (d.span() > inp_win_.size) continue;
        const uint32_t to = inp_win_.base + uint32_t(rng_.below(inp_win_.size - d.span() + 1));
        hw::Instruction st = hw::makeStore(sram, to, s.y, s.x, d.stride);
        st.memory = Memory::Input;
        emitTransfer(st, -1);
        return true;
      }
      const uint64_t dram = pickDram(s, bufferEntries(kOutBuf));
      emitTransfer(hw::makeStore(sram, dram, s.y, s.x, s.stride), kOutBuf);
      return true;
    }
    return false;
  }

  // A micro-op range [begin, end) of loaded micro-ops that all satisfy `ok`.
  // At least `min_len` micro-ops where the loaded ones allow it.
  template <class Pred>
  bool findUops(Pred ok, uint32_t& begin, uint32_t& end, uint32_t min_len = 1) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      const uint32_t b = uop_win_.base + uint32_t(rng_.below(uop_win_.size));
      auto usable = [&](uint32_t u) {
        return u < uop_win_.end() && uop_sram_[u] >= 0 && ok(table_[size_t(uop_sram_[u])]);
      };
      if (!usable(b)) continue;
      const uint32_t len = std::max(min_len, rng_.smallSize(max_uops_));
      uint32_t e = b + 1;
      while (e < b + len && usable(e)) ++e;
      begin = b;
      end = e;
      return true;
    }
    return false;
  }

  // Factors for one index: the largest micro-op value plus (iters-1)*factor
  // must stay below `limit`. A factor whose loop has one iteration does not
  // change any index; it gets a random value that the hardware must ignore.
  void pickFactors(uint32_t iter_out, uint32_t iter_in, uint64_t max_value, uint64_t limit, uint32_t field_bits,
                   uint32_t& f_out, uint32_t& f_in) {
    const uint64_t field_max = (uint64_t(1) << field_bits) - 1;
    uint64_t slack = limit - 1 - max_value;
    auto dontCare = [&]() { return uint32_t(rng_.chance(0.3) ? rng_.below(field_max + 1) : 0); };
    if (iter_out > 1) {
      f_out = uint32_t(std::min<uint64_t>(rng_.below(slack / (iter_out - 1) + 1), field_max));
      slack -= uint64_t(iter_out - 1) * f_out;
    } else {
      f_out = dontCare();
    }
    f_in = iter_in > 1 ? uint32_t(std::min<uint64_t>(rng_.below(slack / (iter_in - 1) + 1), field_max)) : dontCare();
  }

  uint32_t pickIters() { return rng_.chance(0.35) ? 1 : rng_.smallSize(max_iter_); }

  // Whether a GEMM may requantise now: the config has the extension, SETREQ
  // has an op to choose, and the state is one this program set (or the reset
  // one, where the options allow depending on it).
  bool requantAllowed() const {
    return cfg_.gemm_requant && !setreq_ops_.empty() && (setreq_emitted_ || opts_.requant_from_reset);
  }

  bool genGemm() {
    const bool reset = rng_.chance(0.25);
    // Drawn only where requant is possible: other configs keep their stream.
    const bool requant = !reset && requantAllowed() && rng_.chance(0.5);
    // Mostly several micro-ops per iteration for requant: one reduction.
    const uint32_t min_uops = requant && rng_.chance(0.6) ? 2 : 1;
    hw::LoopNest l;
    bool found = findUops(
        [&](const hw::Uop& u) {
          return acc_win_.contains(u.dst) && (reset || (inp_win_.contains(u.src) && wgt_win_.contains(u.wgt)));
        },
        l.uop_begin, l.uop_end, min_uops);
    if (!found) return false;
    uint64_t max_dst = 0, max_src = 0, max_wgt = 0;
    for (uint32_t u = l.uop_begin; u < l.uop_end; ++u) {
      const hw::Uop& uop = table_[size_t(uop_sram_[u])];
      max_dst = std::max<uint64_t>(max_dst, uop.dst);
      max_src = std::max<uint64_t>(max_src, uop.src);
      max_wgt = std::max<uint64_t>(max_wgt, uop.wgt);
    }
    l.iter_out = pickIters();
    l.iter_in = pickIters();
    pickFactors(l.iter_out, l.iter_in, max_dst, acc_win_.end(), cfg_.indexBits(Memory::Acc), l.dst_out, l.dst_in);
    if (reset) {  // src and wgt are not used: random values the hardware must ignore
      l.src_out = anyValue(cfg_.indexBits(Memory::Input));
      l.src_in = anyValue(cfg_.indexBits(Memory::Input));
      l.wgt_out = anyValue(cfg_.indexBits(Memory::Weight));
      l.wgt_in = anyValue(cfg_.indexBits(Memory::Weight));
    } else {
      pickFactors(l.iter_out, l.iter_in, max_src, inp_win_.end(), cfg_.indexBits(Memory::Input), l.src_out, l.src_in);
      pickFactors(l.iter_out, l.iter_in, max_wgt, wgt_win_.end(), cfg_.indexBits(Memory::Weight), l.wgt_out, l.wgt_in);
    }
    Instruction insn = hw::makeGemm(l, reset);
    insn.requant = requant;
    if (requant && !setreq_emitted_) prog_.uses_reset_requant = true;
    emitLoop(insn);
    return true;
  }

  // SETREQ: REQ or FREQ, a random immediate (REQ: mostly ordered int8 clip
  // bounds; FREQ: mostly a zero point in [-128, 127]) and an operand/bias
  // pair of the ACC window, mostly loaded just before from the parameter
  // pairs of the "acc" buffer, otherwise whatever the window holds.
  bool genSetReq() {
    if (setreq_ops_.empty()) return false;
    const AluOp op = setreq_ops_[rng_.below(setreq_ops_.size())];
    const uint32_t base = acc_win_.base + uint32_t(rng_.below(acc_win_.size - 1));
    const std::vector<uint64_t>& params = op == AluOp::Req ? req_params_ : freq_params_;
    if ((opts_.ops & kLoadAcc) && xfer_max_ >= 2 && !params.empty() && rng_.chance(0.75)) {
      const uint64_t pair = params[rng_.below(params.size())];
      emitTransfer(hw::makeLoad(Memory::Acc, base, pair, 1, 2, 2), kAccBuf);
    }
    internalCheck(acc_defined_[base] && acc_defined_[base + 1], "SETREQ reads an undefined entry");
    Instruction insn;
    insn.opcode = Opcode::SetReq;
    insn.alu_op = op;
    insn.sram_base = base;
    if (op == AluOp::Req)  // often the compiler's bounds, [-128, 127] or [0, 127] (fused ReLU)
      insn.imm = rng_.chance(0.4) ? clampImm(rng_.chance(0.5) ? 0x7f80 : 0x7f00) : pickImm(AluOp::Clip);
    else
      insn.imm = rng_.chance(0.8) ? clampImm(rng_.range(-128, 127)) : pickImm(AluOp::FReq);
    const uint64_t need[3] = {0, 0, 0};  // ACC belongs to the compute module alone
    emit(insn, -1, need);
    setreq_emitted_ = true;
    return true;
  }

  // A DWGEMM over loaded micro-ops: random taps (up to the config's window),
  // stride and lane block, inner runs sometimes shorter than the taps (no
  // output).
  bool genDwGemm() {
    hw::LoopNest l;
    bool found = findUops(
        [&](const hw::Uop& u) {
          return acc_win_.contains(u.dst) && inp_win_.contains(u.src) && wgt_win_.contains(u.wgt);
        },
        l.uop_begin, l.uop_end);
    if (!found) return false;
    uint64_t max_dst = 0, max_src = 0, max_wgt = 0;
    for (uint32_t u = l.uop_begin; u < l.uop_end; ++u) {
      const hw::Uop& uop = table_[size_t(uop_sram_[u])];
      max_dst = std::max<uint64_t>(max_dst, uop.dst);
      max_src = std::max<uint64_t>(max_src, uop.src);
      max_wgt = std::max<uint64_t>(max_wgt, uop.wgt);
    }
    const uint32_t taps = uint32_t(rng_.range(1, cfg_.depthwise_taps));
    const uint32_t stride = rng_.chance(0.6) ? 1u : uint32_t(rng_.range(2, 3));
    l.iter_out = pickIters();
    l.iter_in = rng_.chance(0.1) ? uint32_t(rng_.range(1, taps)) : taps - 1 + pickIters();
    if (l.iter_in >= (1u << cfg_.loop_iter_bits)) l.iter_in = (1u << cfg_.loop_iter_bits) - 1;
    Instruction probe = hw::makeDwGemm(l, taps, stride);
    const uint32_t writes = uint32_t(hw::dwgemmWritesPerRun(probe));
    pickFactors(l.iter_out, l.iter_in, max_src, inp_win_.end(), cfg_.indexBits(Memory::Input), l.src_out, l.src_in);
    uint32_t unused = 0;
    pickFactors(l.iter_out, 1, max_wgt, wgt_win_.end(), cfg_.indexBits(Memory::Weight), l.wgt_out, unused);
    pickFactors(l.iter_out, std::max(writes, 1u), max_dst, acc_win_.end(), cfg_.indexBits(Memory::Acc), l.dst_out,
                l.dst_in);
    Instruction insn = hw::makeDwGemm(l, taps, stride);
    // Drawn only where there is a choice, so that square configs see the
    // random stream they always had.
    if (cfg_.depthwiseLaneBlocks() > 1) insn.lane_block = uint32_t(rng_.range(0, cfg_.depthwiseLaneBlocks() - 1));
    // Likewise requant, only where a GEMM could requantise now.
    if (requantAllowed()) {
      insn.requant = rng_.chance(0.5);
      if (insn.requant && !setreq_emitted_) prog_.uses_reset_requant = true;
    }
    emitLoop(insn);
    return true;
  }

  int32_t pickImm(AluOp op) {
    const int64_t hi = (int64_t(1) << (cfg_.alu_imm_bits - 1)) - 1, lo = -hi - 1;
    const int64_t full = rng_.range(lo, hi);
    switch (op) {
      case AluOp::Shr:
      case AluOp::Rshr:
        if (rng_.chance(0.75)) return clampImm(rng_.range(-31, 31));
        if (rng_.chance(0.5)) return clampImm((rng_.chance(0.5) ? 1 : -1) * rng_.range(32, 40));  // clamped
        return clampImm(full);
      case AluOp::Mul: return clampImm(rng_.chance(0.6) ? rng_.range(-64, 64) : full);
      case AluOp::Clip: {  // mostly ordered int8 bounds, sometimes crossed or arbitrary bits
        if (!rng_.chance(0.7)) return clampImm(full);
        const int64_t a = rng_.range(-128, 127), b = rng_.range(-128, 127);
        return clampImm(int16_t(uint16_t((std::max(a, b) & 0xff) << 8 | (std::min(a, b) & 0xff))));
      }
      case AluOp::Req:     // one immediate is both the MULSHR operand and the clip bounds
      case AluOp::MulShr:  // m = imm >> 6 in [-512, 511]; shifts up to 63
        return clampImm(rng_.chance(0.7) ? rng_.range(-512, 511) * 64 + rng_.range(0, 20) : full);
      default: return clampImm(rng_.chance(0.5) ? rng_.range(-200, 200) : full);
    }
  }

  bool genAlu() {
    std::vector<AluOp> ops;
    for (int i = 0; i < hw::numAluOps(cfg_); ++i)
      if (opts_.alu_ops & (1u << i)) ops.push_back(AluOp(i));
    const AluOp op = ops[rng_.below(ops.size())];
    const bool use_imm = rng_.chance(0.5);
    // bias_clear with a tensor operand also reads ACC[src+1], the bias.
    const bool bias_clear = cfg_.alu_bias_clear && rng_.chance(0.3);
    const bool bias = bias_clear && !use_imm;
    hw::LoopNest l;
    bool found = findUops(
        [&](const hw::Uop& u) {
          return acc_win_.contains(u.dst) &&
                 (use_imm || (acc_win_.contains(u.src) && (!bias || acc_win_.contains(u.src + 1))));
        },
        l.uop_begin, l.uop_end);
    if (!found) return false;
    uint64_t max_dst = 0, max_src = 0;
    for (uint32_t u = l.uop_begin; u < l.uop_end; ++u) {
      max_dst = std::max<uint64_t>(max_dst, table_[size_t(uop_sram_[u])].dst);
      max_src = std::max<uint64_t>(max_src, table_[size_t(uop_sram_[u])].src);
    }
    l.iter_out = pickIters();
    l.iter_in = pickIters();
    pickFactors(l.iter_out, l.iter_in, max_dst, acc_win_.end(), cfg_.indexBits(Memory::Acc), l.dst_out, l.dst_in);
    if (use_imm) {  // src is not used
      l.src_out = anyValue(cfg_.indexBits(Memory::Acc));
      l.src_in = anyValue(cfg_.indexBits(Memory::Acc));
    } else {
      pickFactors(l.iter_out, l.iter_in, max_src, acc_win_.end() - (bias ? 1 : 0), cfg_.indexBits(Memory::Acc),
                  l.src_out, l.src_in);
      // Often one operand vector for the whole inner loop (and sometimes for
      // the outer one too), as with per-channel parameters: consecutive
      // micro-ops read the same ACC entry while the dst loop may pass over it.
      if (rng_.chance(0.4)) {
        l.src_in = 0;
        if (rng_.chance(0.3)) l.src_out = 0;
      }
    }
    Instruction insn = use_imm ? hw::makeAluImm(op, l, pickImm(op)) : hw::makeAlu(op, l);
    if (op == AluOp::Req && !use_imm) insn.imm = pickImm(AluOp::Clip);              // its clip bounds
    if (op == AluOp::FReq && !use_imm) insn.imm = clampImm(rng_.range(-128, 127));  // its zero point
    insn.bias_clear = bias_clear;
    if (!opts_.alu_self_overlap && selfOverlaps(insn)) return false;
    emitLoop(insn);
    return true;
  }

  // True if an iteration reads an accumulator entry an earlier iteration of
  // the same instruction wrote.
  bool selfOverlaps(const Instruction& insn) const {
    std::set<uint32_t> written;
    for (const Touch& t : touches(insn)) {
      if (written.count(t.dst) || (!insn.use_imm && written.count(t.src))) return true;
      if (insn.bias_clear && !insn.use_imm && written.count(t.src + 1)) return true;
      written.insert(t.dst);
    }
    return false;
  }

  bool genNop() {
    const int m = int(rng_.below(3));
    bool none[4] = {};
    Instruction i = nopFor(m);
    place(i, bufferOfNop(i), none, none, true);
    prog_.nops++;
    return true;
  }

  bool generate(Kind k) {
    switch (k) {
      case Kind::LoadUop: return genLoad(Memory::Uop);
      case Kind::LoadWgt: return genLoad(Memory::Weight);
      case Kind::LoadInp: return genLoad(Memory::Input);
      case Kind::LoadAcc: return genLoad(Memory::Acc);
      case Kind::LoadAcc8: return genLoad(Memory::Acc8);
      case Kind::Store: return genStore();
      case Kind::Gemm: return genGemm();
      case Kind::DwGemm: return genDwGemm();
      case Kind::Alu: return genAlu();
      case Kind::Nop: return genNop();
      case Kind::SetReq: return genSetReq();
    }
    return false;
  }

  static int moduleOfKind(Kind k) {
    switch (k) {
      case Kind::LoadWgt:
      case Kind::LoadInp: return kLoadModule;
      case Kind::Store: return kStoreModule;
      default: return kComputeModule;
    }
  }

  void body() {
    struct Choice {
      Kind kind;
      uint32_t op;
      double weight;
    };
    const Choice all[] = {{Kind::LoadUop, kLoadUop, 1}, {Kind::LoadWgt, kLoadWgt, 2},   {Kind::LoadInp, kLoadInp, 2},
                          {Kind::LoadAcc, kLoadAcc, 1}, {Kind::LoadAcc8, kLoadAcc8, 1}, {Kind::Store, kStore, 3},
                          {Kind::Gemm, kGemm, 3},       {Kind::Alu, kAlu, 3},           {Kind::Nop, kAllOps, 0.4},
                          {Kind::DwGemm, kGemm, 2},     {Kind::SetReq, kGemm, 1}};
    std::vector<Choice> choices;
    for (const Choice& c : all)
      if ((opts_.ops & c.op) && (c.kind != Kind::DwGemm || cfg_.depthwise_taps) &&
          (c.kind != Kind::SetReq || !setreq_ops_.empty()))
        choices.push_back(c);
    uint64_t attempts = 0;
    for (uint32_t n = 0; n < opts_.length;) {
      if (++attempts > 100ull * opts_.length + 1000)
        throw Error("progen: could not generate " + std::to_string(opts_.length) +
                    " instructions with the selected operations (seed " + std::to_string(prog_.seed) + ")");
      // Bursts: one queue's producer runs ahead and keeps the queue full.
      if (burst_left_ == 0) {
        burst_queue_ = -1;
        // Rarer for deep queues: filling one takes long, and a consumer that
        // then needs the newest data pops the whole queue with NOPs.
        if (opts_.queue_filling && rng_.chance(0.06 * std::min(1.0, 4.0 / token_depth_))) {
          burst_queue_ = int(rng_.below(4));
          burst_left_ = 2 * token_depth_ + 2;
        }
      }
      double total = 0;
      for (const Choice& c : choices) total += weightOf(c.kind, c.weight);
      double pick = double(rng_.next() >> 11) * (1.0 / 9007199254740992.0) * total;
      Kind kind = choices.back().kind;
      for (const Choice& c : choices) {
        pick -= weightOf(c.kind, c.weight);
        if (pick < 0) {
          kind = c.kind;
          break;
        }
      }
      if (!generate(kind)) continue;
      ++n;
      if (burst_left_ > 0) --burst_left_;
    }
    burst_queue_ = -1;
  }

  double weightOf(Kind k, double w) const {
    if (burst_queue_ >= 0 && moduleOfKind(k) == queueEnds(burst_queue_).producer) return 4 * w;
    return w;
  }

  // Pops every remaining token (FINISH takes the last one of each queue that
  // compute consumes), then FINISH.
  void finish() {
    for (int q = 0; q < 4; ++q) {
      const bool finish_pops = queueEnds(q).consumer == kComputeModule;
      while (pending_[q].size() > (finish_pops ? 1u : 0u)) nop(queueEnds(q).consumer, q, -1);
    }
    bool pops[4] = {}, none[4] = {};
    for (int q = 0; q < 4; ++q) pops[q] = queueEnds(q).consumer == kComputeModule && !pending_[q].empty();
    place(hw::makeFinish(), -1, pops, none, false);
  }

  const hw::HwConfig& cfg_;
  const ProgenOptions& opts_;
  Rng rng_;
  hw::IsaLayout layout_;
  RandomProgram prog_;
  std::vector<hw::Uop> table_;
  uint32_t xfer_max_ = 0;  // the largest y_size/x_size/x_stride the config encodes

  uint32_t max_x_, max_y_, max_iter_, max_uops_, token_depth_;
  Window uop_win_, inp_win_, wgt_win_, acc_win_;
  std::vector<int64_t> uop_sram_;  // table index held by each UOP entry, -1 if not loaded
  std::vector<SharedEntry> inp_, wgt_, out_;
  std::vector<bool> acc_defined_;
  // gemm_requant
  static constexpr int kRequantPairs = 4;           // parameter pairs per op in the "acc" buffer
  std::vector<AluOp> setreq_ops_;                   // empty without the extension
  std::vector<uint64_t> req_params_, freq_params_;  // first entry of each pair in the "acc" buffer
  bool setreq_emitted_ = false;

  uint64_t count_[3] = {0, 0, 0};
  int64_t last_pos_[3] = {-1, -1, -1};
  VectorClock vc_now_[3];
  std::deque<VectorClock> pending_[4];
  size_t count_after_last_producer_[4] = {0, 0, 0, 0};
  int burst_queue_ = -1;
  uint32_t burst_left_ = 0;
};

}  // namespace

void validateOptions(const hw::HwConfig& cfg, const ProgenOptions& o) {
  auto fail = [&](const std::string& why) { throw Error("progen options for config '" + cfg.name + "': " + why); };
  if (o.length == 0) fail("length must be at least 1");
  if (o.length > 1000000) fail("length " + std::to_string(o.length) + " is above the limit of 1000000");
  if (!(o.size_scale > 0 && o.size_scale <= 64)) fail("size_scale must be in (0, 64]");
  if (o.ops == 0 || (o.ops & ~uint32_t(kAllOps))) fail("ops must be a non-empty set of OpKind bits");
  const bool acc_load = o.ops & (kLoadAcc | kLoadAcc8);
  if (o.ops & kGemm) {
    if (!(o.ops & kLoadUop) || !(o.ops & kLoadInp) || !(o.ops & kLoadWgt) || !acc_load)
      fail("GEMM needs LOAD UOP, LOAD INP, LOAD WGT and LOAD ACC or ACC8, which define its operands");
  }
  if (o.ops & kAlu) {
    if (!(o.ops & kLoadUop) || !acc_load) fail("ALU needs LOAD UOP and LOAD ACC or ACC8, which define its operands");
    if (o.alu_ops == 0 || (o.alu_ops >> hw::kNumAluOps)) fail("alu_ops must be a non-empty set of AluOp bits");
    if (!(o.alu_ops & ((1u << hw::numAluOps(cfg)) - 1)))
      fail("alu_ops holds only ALU ops that config '" + cfg.name + "' does not have (REQ needs fused_requant)");
  }
  if ((o.ops & kStore) && !(o.ops & (kGemm | kAlu)))
    fail("STORE needs GEMM or ALU: only they write the OUT entries a STORE reads");
  if (o.padding && cfg.pad_bits == 0) fail("padding was requested but the config has no padding bits");
  if (cfg.alu_imm_bits < 2) fail("the ALU immediate needs at least 2 bits");
  if (cfg.loop_iter_bits < 1) fail("loop iterations need at least 1 bit");
}

RandomProgram generateProgram(const hw::HwConfig& cfg, uint64_t seed, const ProgenOptions& opts) {
  validateOptions(cfg, opts);
  return Generator(cfg, seed, opts).run();
}

}  // namespace vdla::sim::progen
