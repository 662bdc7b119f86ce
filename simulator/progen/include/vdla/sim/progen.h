#pragma once
// progen: random *valid* VDLA programs for differential testing.
//
// generateProgram() builds, deterministically from a seed, a complete program
// (instructions ending with FINISH, a micro-op table, DRAM buffers with random
// initial contents) that
//   * stays inside every SRAM depth and every DRAM buffer,
//   * reads only on-chip entries that the program itself wrote first, so the
//     result does not depend on what earlier programs left in the SRAMs (nor,
//     unless ProgenOptions::requant_from_reset, on the requantisation state of
//     SETREQ: every requantising GEMM follows a SETREQ of the program),
//   * orders every cross-module hazard (load writes INP/WGT -> GEMM reads,
//     GEMM reads -> next load overwrites, GEMM/ALU writes OUT -> STORE reads,
//     STORE reads -> next GEMM/ALU overwrites) with dependency tokens, so its
//     result is the same under every legal schedule,
//   * never deadlocks and leaves no token behind: executed one instruction at a
//     time in program order, every pop finds a token and every push finds room,
//     which implies that an eager in-order machine with any queue depths that
//     fetches in program order cannot deadlock either.
//
// Instructions address DRAM relative to the program's buffers (see
// RandomProgram::buffer_of): a harness allocates the buffers wherever its
// device puts them and calls relocate() to get the runnable instructions.
//
// Where a token must be popped past older, unrelated tokens, or pushed from a
// module that has nothing to do, the generator emits a NOP: a transfer or loop
// of size zero (LOAD/STORE with y or x zero, GEMM/ALU with zero iterations or
// an empty micro-op range). The ISA defines these as doing nothing but their
// token operations (VTA's runtime uses the same trick).
#include <cstdint>
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"

namespace vdla::sim::progen {

// Instruction kinds the random body may use (bit flags for ProgenOptions::ops).
enum OpKind : uint32_t {
  kLoadUop = 1u << 0,
  kLoadWgt = 1u << 1,
  kLoadInp = 1u << 2,
  kLoadAcc = 1u << 3,
  kLoadAcc8 = 1u << 4,
  kStore = 1u << 5,
  // GEMM; also DWGEMM on configs with the depthwise_taps extension, and
  // SETREQ and GEMMs with the requant flag on configs with gemm_requant.
  kGemm = 1u << 6,
  kAlu = 1u << 7,
  kAllOps = (1u << 8) - 1,
};

struct ProgenOptions {
  // Instructions of the random body (the prologue that defines the working
  // set, the NOPs and the final token drain come on top).
  uint32_t length = 40;
  // Scales the on-chip working windows, transfer sizes and loop extents
  // (1.0: a few dozen entries per memory; windows never exceed the memories).
  double size_scale = 1.0;
  uint32_t ops = kAllOps;                         // OpKind bits
  uint32_t alu_ops = (1u << hw::kNumAluOps) - 1;  // bit i enables AluOp(i)
  bool padding = true;                            // LOADs with zero padding
  // Bursts in which a producer runs ahead by a full token queue and long runs
  // of one module's instructions, so that the token and command queues fill.
  bool queue_filling = true;
  // ALU loop nests in which one iteration reads an accumulator entry that an
  // earlier iteration of the same instruction wrote (well defined by the
  // sequential loop semantics of docs/isa.md, and hard for pipelined ALUs).
  bool alu_self_overlap = true;
  // On configs with gemm_requant: requantising GEMMs may come before the
  // program's first SETREQ, so that they use the state after reset (REQ with
  // zero operand, bias and immediate). Such a program depends on the device
  // not having executed a SETREQ since its reset (RandomProgram::
  // uses_reset_requant says whether it does): run it on a fresh device. Off,
  // every requantising GEMM follows a SETREQ of the same program, and a
  // program's result does not depend on what earlier programs did.
  bool requant_from_reset = false;
};

// Bytes of DRAM the program uses, before and after the run.
struct ProgramBuffer {
  std::string name;           // "uop", "inp", "wgt", "acc", "acc8", "out"
  hw::Memory memory;          // the memory whose entries dram_base counts (Output for "out")
  bool written = false;       // STOREs write it; every other buffer must stay unchanged
  std::vector<uint8_t> init;  // initial contents; its size is the buffer size
};

struct RandomProgram {
  uint64_t seed = 0;
  std::string config_name;
  // dram_base of LOAD/STORE counts entries from the start of buffer
  // buffers[buffer_of[i]]; buffer_of[i] is -1 for GEMM, DWGEMM, ALU, SETREQ
  // and FINISH.
  std::vector<hw::Instruction> instructions;
  std::vector<int> buffer_of;
  std::vector<hw::Uop> uops;  // the micro-op table, also encoded in buffer "uop"
  std::vector<ProgramBuffer> buffers;
  uint32_t nops = 0;             // how many instructions are token-only NOPs
  uint32_t stores_to_input = 0;  // STORE INPs (configs with inp_writeback)
  // A requantising GEMM (with micro-ops to run) comes before the first SETREQ:
  // the result holds only on a device whose requantisation state is the
  // reset one (only with ProgenOptions::requant_from_reset).
  bool uses_reset_requant = false;

  int bufferIndex(const std::string& name) const;  // -1 if absent
};

// Throws vdla::Error with the reason if `opts` cannot be honoured on `cfg`
// (e.g. GEMM without the loads that define its operands, or a length of zero).
void validateOptions(const hw::HwConfig& cfg, const ProgenOptions& opts);

RandomProgram generateProgram(const hw::HwConfig& cfg, uint64_t seed, const ProgenOptions& opts = {});

// The runnable instructions for buffers placed at the given physical byte
// addresses (one per buffer, in order). Throws vdla::Error if an address is not
// a multiple of the entry size of the buffer's memory.
std::vector<hw::Instruction> relocate(const hw::HwConfig& cfg, const RandomProgram& program,
                                      const std::vector<uint64_t>& buffer_addrs);

// A listing for failure reports: the buffer table, then one line per
// instruction in assembly (addresses relative to the named buffer).
std::string describeProgram(const RandomProgram& program);

// The index of the last instruction (in program order) that writes byte
// `offset` of buffer `buffer`, or -1 if none does. The store module runs in
// order, so this is the instruction whose data the byte should hold.
int lastWriterOf(const hw::HwConfig& cfg, const RandomProgram& program, int buffer, uint64_t offset);

}  // namespace vdla::sim::progen
