#include "vdla/sim/cycle_sim.h"

#include <cstring>
#include <sstream>

#include "model_cache.h"
#include "model_registry.h"
#include "vdla/sim/program_stats.h"
#include "vdla/hw/registers.h"
#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/run_status.h"

namespace vdla::sim {

namespace regs = hw::regs;
namespace {

// The program as fetch will see it; an instruction that does not decode is
// empty (the hardware reports why).
std::vector<std::optional<hw::Instruction>> decodeProgram(const hw::HwConfig& cfg, const uint8_t* stream,
                                                          uint32_t count) {
  hw::IsaLayout layout(cfg);
  std::vector<std::optional<hw::Instruction>> insns(count);
  for (uint32_t i = 0; i < count; ++i) {
    hw::EncodedInstruction bits;
    std::memcpy(bits.data(), stream + 16 * size_t(i), 16);
    try {
      insns[i] = layout.decode(bits);
    } catch (const std::exception&) {
      // The hardware reports it when fetch gets there.
    }
  }
  return insns;
}

}  // namespace

std::vector<std::string> cycleSimConfigs() {
  std::vector<std::string> names;
  for (const CycleModelEntry& e : cycleModels()) names.push_back(e.config_name);
  return names;
}

bool cycleSimSupports(const hw::HwConfig& cfg) {
  return findCycleModel(cfg) != nullptr || cycleModelCached(cfg) || cycleModelBuildEnabled();
}

CycleModelInfo prepareCycleModel(const hw::HwConfig& cfg) {
  if (findCycleModel(cfg)) return {CycleModelSource::BuiltIn, ""};
  const OnDemandModel m = loadOnDemandModel(cfg);
  return {m.built ? CycleModelSource::Built : CycleModelSource::Cache, m.path};
}

CycleSimulator::CycleSimulator(const hw::HwConfig& cfg, Dram& dram, CycleSimOptions options)
    : cfg_(cfg), dram_(dram), options_(std::move(options)) {
  const CycleModelFactory make = requireCycleModel(cfg);
  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  harness_ = make(cfg_, dram_, options_.dram.value_or(defaultDramTiming(cfg_)));
  harness_->reset();
}

CycleSimulator::~CycleSimulator() {
  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  harness_.reset();
}

void CycleSimulator::setOptions(const CycleSimOptions& options) {
  options_ = options;
  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  harness_->axi().setTiming(options_.dram.value_or(defaultDramTiming(cfg_)));
}

ExecutionStats CycleSimulator::run(uint64_t insn_addr, uint32_t count, const std::atomic<bool>* cancel) {
  const uint64_t bytes = uint64_t(count) * hw::kInstructionBytes;
  const uint8_t* stream = dram_.map(insn_addr, bytes);
  if (!stream) {
    std::ostringstream msg;
    msg << "instruction fetch: " << count << " instructions at 0x" << std::hex << insn_addr << " (" << std::dec << bytes
        << " bytes) are not inside an allocated buffer";
    throw Error(msg.str());
  }
  if (insn_addr + bytes > (uint64_t(1) << 32))
    throw Error("instruction stream lies beyond the 32-bit AXI address space");
  const std::vector<std::optional<hw::Instruction>> insns = decodeProgram(cfg_, stream, count);
  const hw::InstructionLookup program = [&](uint32_t index) {
    return index < insns.size() ? insns[index] : std::nullopt;
  };
  auto name = [&](uint32_t index) {
    return index < insns.size() && insns[index] ? hw::instructionName(*insns[index]) : std::string("instruction");
  };
  auto readStatus = [&](CycleHarness& h) {
    return hw::readStatus([&](uint32_t offset) { return h.axilRead(offset); });
  };

  std::lock_guard<std::recursive_mutex> lock(systemcMutex());
  CycleHarness& h = *harness_;
  h.activate();
  TimelineTrace timeline;
  if (!options_.trace_path.empty() || options_.record_activity) h.setTimeline(&timeline);
  if (!options_.waves_path.empty()) h.openWaves(options_.waves_path);
  struct Cleanup {  // whatever happens, leave the harness without trace outputs
    CycleHarness& h;
    ~Cleanup() {
      h.setTimeline(nullptr);
      h.closeWaves();
    }
  } cleanup{h};

  h.axilWrite(regs::kInsnAddr, uint32_t(insn_addr));
  h.axilWrite(regs::kInsnAddrHi, 0);
  h.axilWrite(regs::kInsnCount, count);
  const uint64_t start_cycle = h.cycle();
  h.axilWrite(regs::kCtrl, regs::kCtrlStart);

  // Poll like a driver would; the interval grows so that short programs end
  // promptly and long ones spend almost nothing on polling.
  uint64_t interval = 64;
  uint32_t ctrl = 0;
  std::optional<hw::StatusSnapshot> previous;
  std::string failure;
  while (true) {
    h.runCycles(interval);
    ctrl = h.axilRead(regs::kCtrl);
    if (!(ctrl & regs::kCtrlRunning)) break;
    if (interval < 8192) interval *= 2;
    const uint64_t elapsed = h.cycle() - start_cycle;
    if (cancel && cancel->load(std::memory_order_relaxed)) {
      failure = "run cancelled after " + std::to_string(elapsed) + " cycles";
      break;
    }
    if (elapsed >= options_.max_cycles) {
      hw::StatusSnapshot s = readStatus(h);
      failure = "cycle limit of " + std::to_string(options_.max_cycles) + " cycles reached" +
                (hw::isDeadlocked(s) ? " (deadlock: no module can make progress)" : "") + ": " +
                hw::describeWaits(s, program, count, cfg_);
      break;
    }
    // Deadlock: every module blocked on tokens or queue room, twice in a row.
    hw::StatusSnapshot s = readStatus(h);
    if (hw::isDeadlocked(s) && h.axi().idle()) {
      if (previous && *previous == s) {
        failure = "deadlock: no module can make progress; " + hw::describeWaits(s, program, count, cfg_);
        break;
      }
      previous = s;
    } else {
      previous.reset();
    }
  }
  if (!options_.trace_path.empty() || options_.record_activity) timeline.finish(h.cycle());
  if (!options_.trace_path.empty()) timeline.write(options_.trace_path, 1000.0 / cfg_.clock_mhz, name);
  if (failure.empty() && (ctrl & regs::kCtrlError)) {
    failure = hw::describeRunError(h.axilRead(regs::kErrorCode), h.axilRead(regs::kErrorIndex),
                                   h.axilRead(regs::kErrorInfo), count, program, cfg_, h.axi().firstError());
  }
  if (!failure.empty()) {
    h.reset();  // a clean accelerator for the next run
    throw Error(failure);
  }

  std::vector<hw::Instruction> decoded;
  for (const auto& i : insns)
    if (i) decoded.push_back(*i);
  ExecutionStats stats = programStats(cfg_, decoded);
  stats.cycles = h.readCounter(regs::kCntCycles);
  stats.has_cycle_counters = true;
  stats.cycle_counters = cycleCountersFromRegisters([&](uint32_t i) { return h.readCounter(i); });
  if (options_.record_activity) stats.activity = timeline.activity(start_cycle, name);
  return stats;
}

}  // namespace vdla::sim

// libsystemc calls sc_main from its own main(); this library is used from
// programs with their own main, so the symbol only has to exist.
int sc_main(int, char**) { return 0; }
