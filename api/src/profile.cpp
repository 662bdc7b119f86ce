#include "vdla/api/profile.h"

#include <cstring>

#include "vdla/compiler/synthetic_input.h"
#include "vdla/hw/error.h"

namespace vdla::api {

std::string latencyHidingModeName(bool on) { return on ? "on" : "off"; }

ProfileResult profileNetwork(ir::Graph& graph, const hw::HwConfig& cfg, CompileOptions copts,
                             const ProfileOptions& options) {
  const std::vector<bool>& modes = options.latency_hiding;
  if (modes.empty() || modes.size() > 2 || (modes.size() == 2 && modes[0] == modes[1]))
    throw Error("profile: latency hiding takes one mode or the two distinct modes on and off");
  if (graph.inputs().size() != 1)
    throw Error("profile: the model has " + std::to_string(graph.inputs().size()) + " inputs; profiling needs one");

  // The input, before the graph is quantised in place.
  const rt::TensorType in_type = graph.inputs().at(0)->type();
  rt::Tensor input = options.input.empty() ? seededUniformInput(in_type) : options.input;
  if (input.type() != in_type)
    throw Error("profile: the input is " + input.type().toString() + ", the model takes " + in_type.toString());

  copts.target = "vdla";
  // A device that counts cycles per run but cannot record module activity
  // (a board) could not split a program chain into its layers: there each
  // layer runs as a program of its own.
  if (options.device != "cycle" && options.device != "fsim" && options.device != "hls")
    copts.accel.chain_layers = false;
  copts.hw_config = cfg.name;
  copts.hw_config_value = cfg;

  ProfileResult result;
  ProfileReport& report = result.report;
  report.model = options.model_name;
  report.device = options.device;
  report.config = cfg.name;
  report.clock_mhz = cfg.clock_mhz;
  for (bool m : modes) report.modes.push_back(latencyHidingModeName(m));

  for (size_t k = 0; k < modes.size(); ++k) {
    const std::string mode = report.modes[k];
    copts.accel.latency_hiding = modes[k];
    if (k > 0) copts.optimize = false;  // the graph is optimised and quantised already
    CompileReport creport;
    const rt::Artifact artifact = compileGraph(graph, copts, &creport);
    // Module activity splits a program chain's cycles into its layers.
    driver::DeviceOptions dopts = options.device_options;
    if (options.device == "cycle") dopts.record_activity = true;
    std::unique_ptr<driver::Device> device = driver::createDevice(options.device, cfg, dopts);
    rt::ExecutorOptions eopts;
    eopts.device = device.get();
    eopts.profile = true;
    // CPU steps generated in this process (the LLVM fallback) run from its kernels.
    std::unique_ptr<rt::Executor> executor = creport.kernels
                                                 ? std::make_unique<rt::Executor>(artifact, *creport.kernels, eopts)
                                                 : std::make_unique<rt::Executor>(artifact, eopts);
    if (options.progress)
      options.progress("running " + options.model_name + " with latency hiding " + mode + " on " + options.device +
                       "...");
    std::vector<rt::Tensor> outputs = executor->run({input});
    if (options.on_mode_run) options.on_mode_run(mode, executor->profile());
    report.host_work[mode] = hostWork(artifact, executor->profile(), cfg);
    if (k == 0) {
      result.outputs = std::move(outputs);
    } else {
      for (size_t o = 0; o < outputs.size(); ++o)
        result.outputs_identical = result.outputs_identical && outputs[o].byteSize() == result.outputs[o].byteSize() &&
                                   std::memcmp(outputs[o].raw(), result.outputs[o].raw(), outputs[o].byteSize()) == 0;
    }
    // One row per offloaded layer, in step order.
    size_t row = 0;
    for (const rt::StepProfile& p : executor->profile()) {
      if (!p.on_device) continue;
      const accel::LayerDecision* d = nullptr;
      for (const auto& l : creport.layers)
        if (l.name == p.name) d = &l;
      if (k == 0) {
        LayerProfile lp;
        lp.name = p.name;
        lp.shape = d ? d->output_shape : "";
        lp.macs = d ? d->macs : 0;
        lp.ideal_cycles = double(lp.macs) / double(cfg.macsPerCycle());
        report.layers.push_back(lp);
      }
      if (row >= report.layers.size() || report.layers[row].name != p.name)
        throw Error("profile: the offloaded layers differ between latency-hiding modes at '" + p.name + "'");
      LayerMeasurement m;
      if (d) m.estimated_cycles = d->estimate.cycles - d->chain_overlap;
      if (p.device_stats.has_cycle_counters) {
        m.cycles = double(p.device_stats.cycles);
        m.gemm_cycles = double(p.device_stats.cycle_counters.gemm_uop_cycles);
        m.measured = true;
        for (uint64_t b : p.device_stats.dram_bytes_read) m.dram_bytes_read += b;
        m.dram_bytes_written = p.device_stats.dram_bytes_written;
        m.load_busy = p.device_stats.cycle_counters.load.busy;
        m.compute_busy = p.device_stats.cycle_counters.compute.busy;
        m.store_busy = p.device_stats.cycle_counters.store.busy;
      } else if (d) {
        m.cycles = d->estimate.cycles - d->chain_overlap;
        m.gemm_cycles = d->estimate.gemm_cycles;
      }
      report.layers.at(row++).by_mode[mode] = m;
    }
  }
  return result;
}

}  // namespace vdla::api
