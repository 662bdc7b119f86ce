#pragma once
// Hardware configuration: the single description of one VDLA instance. The ISA
// field widths, the generated HLS/RTL parameters, the simulators and the
// compiler's limits are all derived from a HwConfig, never restated.
#include <cstdint>
#include <string>
#include <vector>

namespace vdla::hw {

// On-chip memories. Acc8 is not a memory of its own: it names the LOAD mode that
// fills the accumulator memory from int8 DRAM data (sign-extended), which is how
// a residual operand produced by an earlier layer enters the ALU.
enum class Memory : uint8_t { Uop = 0, Weight = 1, Input = 2, Acc = 3, Output = 4, Acc8 = 5 };
constexpr int kNumMemoryIds = 6;
const char* memoryName(Memory m);  // "UOP", "WGT", "INP", "ACC", "OUT", "ACC8"

// Limits of the RTL that the ISA encoding alone would not impose; the
// validator refuses configs beyond them rather than let the RTL cut a value.
constexpr uint32_t kMaxDramAddrBits = 32;      // AXI byte addresses are 32 bits
constexpr uint32_t kMaxTokenQueueDepth = 255;  // token counts are reported in 8 bits
constexpr uint32_t kMaxAxiDataBits = 128;      // the RTL's fetch takes whole instructions from one or more beats
constexpr uint32_t kMaxDepthwiseTaps = 15;     // DWGEMM's taps field is 4 bits

struct HwConfig {
  std::string name;
  std::string description;

  // target
  std::string board;
  std::string part;
  double clock_mhz = 0;

  // GEMM core: (batch x block_in) * (block_in x block_out) per cycle.
  uint32_t batch = 0, block_in = 0, block_out = 0;

  // data widths in bits
  uint32_t input_bits = 0, weight_bits = 0, acc_bits = 0, output_bits = 0;

  // on-chip buffer sizes in bytes
  uint64_t uop_bytes = 0, input_bytes = 0, weight_bytes = 0, acc_bytes = 0, output_bytes = 0;

  uint32_t axi_data_bits = 0;
  uint32_t command_queue_depth = 0;  // per-module instruction queue
  uint32_t token_queue_depth = 0;    // each of the four dependency-token queues

  // ISA field widths that are not implied by the buffer sizes.
  uint32_t dram_addr_bits = 0, xfer_size_bits = 0, pad_bits = 0, loop_iter_bits = 0, alu_imm_bits = 0;
  // Datapath extensions (JSON section "extensions"; all off when absent).
  // fused_requant: the ALU op REQ, MULSHR and CLIP in one pass (docs/isa.md).
  bool fused_requant = false;
  // float_requant: the ALU op FREQ, onnxruntime's float requantisation in one
  // pass (docs/isa.md); needs fused_requant.
  bool float_requant = false;
  // depthwise_taps: the instruction DWGEMM, a depthwise convolution row with up
  // to this many horizontal taps per pass (docs/isa.md); 0 = off. Needs
  // block_in to be block_out or a multiple of it (DWGEMM's lane_block then
  // picks which block_out channels of an input entry it reads) and at most
  // ceil(block_out / 2) taps (one multiplier pair of the GEMM core per tap).
  uint32_t depthwise_taps = 0;
  // alu_bias_clear: the ALU flag bias_clear, with which an op adds the bias
  // ACC[src+1] to ACC[dst] first, writes its result to OUT only and leaves
  // ACC[dst] zero, so that a convolution's bias needs no pass of its own
  // (docs/isa.md).
  bool alu_bias_clear = false;
  // gemm_requant: the instruction SETREQ and the GEMM flag requant, with
  // which a GEMM's every accumulation starts its reduction from the bias and
  // writes the requantised int8 result to OUT, so that a layer whose
  // reduction fits one GEMM needs no ALU pass (docs/isa.md). Needs
  // fused_requant and alu_bias_clear (it shares their lanes and registers).
  bool gemm_requant = false;
  // acc_dual_read: a second read port on ACC (a copy of the accumulator
  // memory that takes the same writes), so that an ALU op with a tensor
  // operand reads ACC[dst] and ACC[src] in the same cycle: one vector per
  // cycle instead of two. Programs and results are unchanged; it trades the
  // ACC's block RAM a second time for the speed of max pooling, additions
  // and residuals (docs/hardware.md).
  bool acc_dual_read = false;
  // inp_writeback: STORE INP, with which the store module copies OUT
  // entries into INP instead of DRAM, so that a layer's requantised output
  // becomes the next layer's input on chip (an expansion feeding a
  // depthwise layer) without a round trip through DRAM. Needs INP and OUT
  // entries of one width (block_in == block_out) (docs/isa.md).
  bool inp_writeback = false;

  // Which on-chip buffers synthesis places in UltraRAM instead of block RAM
  // (JSON "ultraram": a list of buffers_kib names; none when absent): one
  // bit per Memory id (Uop, Weight, Input, Acc, Output; ACC's copy for
  // acc_dual_read follows ACC). Behaviour, programs and results are the
  // same either way; only the memory primitives differ (docs/hardware.md,
  // Resources). Only Zynq UltraScale+ EV/EG parts with UltraRAM can hold
  // them: the resource model and scripts/hw/resources.sh refuse others.
  uint32_t ultraram = 0;
  bool inUltraRam(Memory m) const { return (ultraram >> unsigned(m == Memory::Acc8 ? Memory::Acc : m)) & 1u; }

  // 64-bit FNV-1a of the canonical form of every hardware-relevant field
  // (everything but name and description). The hardware exposes it; the
  // runtime refuses artifacts compiled for another hash.
  uint64_t hash = 0;

  // ---- derived quantities ----
  // Bytes of one SRAM entry (one row of the memory). For Acc8 it is the DRAM
  // element size of the int8 source.
  uint32_t entryBytes(Memory m) const;
  // Number of entries of the memory (Acc8 shares the accumulator memory).
  uint32_t depth(Memory m) const;
  // Bits of an index into the memory: ceil(log2(depth)).
  uint32_t indexBits(Memory m) const;
  uint64_t macsPerCycle() const { return uint64_t(batch) * block_in * block_out; }
  // DWGEMM's lane blocks: the block_out-channel slices of an input entry that
  // its lane_block field selects (block_in / block_out; 1 on square arrays).
  uint32_t depthwiseLaneBlocks() const { return block_in > block_out ? block_in / block_out : 1; }
  // Cycles per vector of an ALU op whose tensor operand changes with every
  // vector: it reads ACC[dst] and ACC[src], two reads on ACC's one read port,
  // or one cycle with acc_dual_read.
  uint32_t tensorAluCyclesPerVector() const { return acc_dual_read ? 1 : 2; }
  // Cycles a bias_clear op loses when its bias and operand are not in their
  // registers: the bias fetch ahead of it, and on one read port its own src
  // read waiting for the fetch (three cycles instead of one; two with
  // acc_dual_read).
  uint32_t biasMissExtraCycles() const { return acc_dual_read ? 1 : 2; }
  std::string hashHex() const;
};

// Parses and validates JSON text. `origin` (a file name or "builtin:pynq") goes
// into every error message, together with the field and the reason.
HwConfig parseConfig(const std::string& json_text, const std::string& origin);

// Loads a config from a file path, or a shipped config by name ("pynq", "tiny").
HwConfig loadConfig(const std::string& path_or_name);

// Names of the configs built into the library (the JSON files in vdla_hw/config).
std::vector<std::string> builtinConfigNames();
const std::string* builtinConfigText(const std::string& name);  // nullptr if unknown

constexpr const char* kDefaultConfigName = "pynq";

// The canonical JSON form (pretty-printed when indent >= 0) including derived
// quantities under "derived".
std::string configToJson(const HwConfig& cfg, int indent = 2);

}  // namespace vdla::hw
