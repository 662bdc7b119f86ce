#include "vdla/sim/cycle_sim.h"

#include <cstring>
#include <sstream>

#include "model_cache.h"
#include "model_registry.h"
#include "program_stats.h"
#include "rtl_status.h"
#include "run_report.h"
#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"

namespace vdla::sim {
namespace {

ProgramView decodeProgram(const hw::HwConfig& cfg, const uint8_t* stream, uint32_t count) {
  hw::IsaLayout layout(cfg);
  ProgramView view;
  view.insns.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    hw::EncodedInstruction bits;
    std::memcpy(bits.data(), stream + 16 * size_t(i), 16);
    try {
      view.insns[i] = layout.decode(bits);
    } catch (const std::exception&) {
      // The hardware reports it when fetch gets there.
    }
  }
  return view;
}

StatusSnapshot readStatus(CycleHarness& h) {
  StatusSnapshot s;
  s.module_state = h.axilRead(rtl::kModuleState);
  for (int m = 0; m < 4; ++m) s.index[m] = h.axilRead(rtl::kFetchIndex + 4 * m);
  s.tokens = h.axilRead(rtl::kTokens);
  s.queues = h.axilRead(rtl::kQueues);
  return s;
}

ExecutionStats::ModuleCycles moduleCycles(CycleHarness& h, uint32_t busy, uint32_t token, uint32_t room,
                                          uint32_t dram) {
  ExecutionStats::ModuleCycles m;
  m.busy = h.readCounter(busy);
  if (token != ~0u) m.wait_token = h.readCounter(token);
  m.wait_room = h.readCounter(room);
  m.wait_dram = h.readCounter(dram);
  return m;
}

}  // namespace

DramTiming defaultDramTiming(const hw::HwConfig& cfg) {
  DramTiming t;
  t.bytes_per_cycle = cfg.axi_data_bits / 8.0;
  const bool fast_clock = cfg.clock_mhz > 150;
  t.read_latency = fast_clock ? 48 : 32;
  t.write_latency = fast_clock ? 24 : 16;
  t.max_outstanding = 8;
  return t;
}

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
    msg << "instruction fetch: " << count << " instructions at 0x" << std::hex << insn_addr << " (" << std::dec
        << bytes << " bytes) are not inside an allocated buffer";
    throw Error(msg.str());
  }
  if (insn_addr + bytes > (uint64_t(1) << 32)) throw Error("instruction stream lies beyond the 32-bit AXI address space");
  const ProgramView program = decodeProgram(cfg_, stream, count);

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

  h.axilWrite(rtl::kInsnAddr, uint32_t(insn_addr));
  h.axilWrite(rtl::kInsnAddrHi, 0);
  h.axilWrite(rtl::kInsnCount, count);
  const uint64_t start_cycle = h.cycle();
  h.axilWrite(rtl::kCtrl, 1);

  // Poll like a driver would; the interval grows so that short programs end
  // promptly and long ones spend almost nothing on polling.
  uint64_t interval = 64;
  uint32_t ctrl = 0;
  std::optional<StatusSnapshot> previous;
  std::string failure;
  while (true) {
    h.runCycles(interval);
    ctrl = h.axilRead(rtl::kCtrl);
    if (!(ctrl & 1)) break;
    if (interval < 8192) interval *= 2;
    const uint64_t elapsed = h.cycle() - start_cycle;
    if (cancel && cancel->load(std::memory_order_relaxed)) {
      failure = "run cancelled after " + std::to_string(elapsed) + " cycles";
      break;
    }
    if (elapsed >= options_.max_cycles) {
      StatusSnapshot s = readStatus(h);
      failure = "cycle limit of " + std::to_string(options_.max_cycles) + " cycles reached" +
                (isDeadlocked(s) ? " (deadlock: no module can make progress)" : "") + ": " +
                describeWaits(s, program, count, cfg_);
      break;
    }
    // Deadlock: every module blocked on tokens or queue room, twice in a row.
    StatusSnapshot s = readStatus(h);
    if (isDeadlocked(s) && h.axi().idle()) {
      if (previous && *previous == s) {
        failure = "deadlock: no module can make progress; " + describeWaits(s, program, count, cfg_);
        break;
      }
      previous = s;
    } else {
      previous.reset();
    }
  }
  if (!options_.trace_path.empty() || options_.record_activity) timeline.finish(h.cycle());
  if (!options_.trace_path.empty())
    timeline.write(options_.trace_path, 1000.0 / cfg_.clock_mhz,
                   [&](uint32_t index) { return program.name(index); });
  if (failure.empty() && (ctrl & 4)) {
    failure = describeError(h.axilRead(rtl::kErrorCode), h.axilRead(rtl::kErrorIndex), h.axilRead(rtl::kErrorInfo),
                            program, cfg_, h.axi().firstError());
  }
  if (!failure.empty()) {
    h.reset();  // a clean accelerator for the next run
    throw Error(failure);
  }

  std::vector<hw::Instruction> decoded;
  for (const auto& i : program.insns)
    if (i) decoded.push_back(*i);
  ExecutionStats stats = programStats(cfg_, decoded);
  stats.cycles = h.readCounter(rtl::kCntCycles);
  stats.has_cycle_counters = true;
  auto& c = stats.cycle_counters;
  c.fetch = moduleCycles(h, rtl::kCntFetchBusy, ~0u, rtl::kCntFetchWaitQueue, rtl::kCntFetchWaitDram);
  c.load = moduleCycles(h, rtl::kCntLoadBusy, rtl::kCntLoadWaitToken, rtl::kCntLoadWaitRoom, rtl::kCntLoadWaitDram);
  c.compute = moduleCycles(h, rtl::kCntComputeBusy, rtl::kCntComputeWaitToken, rtl::kCntComputeWaitRoom, rtl::kCntComputeWaitDram);
  c.store = moduleCycles(h, rtl::kCntStoreBusy, rtl::kCntStoreWaitToken, rtl::kCntStoreWaitRoom, rtl::kCntStoreWaitDram);
  c.gemm_uop_cycles = h.readCounter(rtl::kCntGemmUops);
  c.alu_cycles = h.readCounter(rtl::kCntAluVectors);
  if (options_.record_activity)
    stats.activity = timeline.activity(start_cycle, [&](uint32_t index) { return program.name(index); });
  return stats;
}

}  // namespace vdla::sim

// libsystemc calls sc_main from its own main(); this library is used from
// programs with their own main, so the symbol only has to exist.
int sc_main(int, char**) { return 0; }
