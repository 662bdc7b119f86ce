#include "vdla/explore/device_confirmation.h"

#include <chrono>

#include "vdla/compiler/compile.h"
#include "vdla/compiler/synthetic_input.h"
#include "vdla/driver/device.h"
#include "vdla/hw/error.h"
#include "vdla/runtime/executor.h"

namespace vdla::explore {

Confirmation confirmOnDevice(const DesignPoint& point, const std::vector<NetworkWorkload>& networks,
                             const std::string& device_name) {
  const auto start = std::chrono::steady_clock::now();
  const hw::HwConfig& cfg = point.config;
  Confirmation c;
  for (const NetworkWorkload& w : networks) {
    if (!w.graph) throw Error("network '" + w.name + "' was prepared without its graph; cannot confirm it on a device");
    if (w.graph->inputs().size() != 1 || w.graph->inputs()[0]->type().dtype != rt::DType::F32)
      throw Error("network '" + w.name + "': device confirmation needs one f32 input");
    // The graph is quantised already: lower it as it is, for this config.
    CompileOptions o;
    o.target = "vdla";
    o.optimize = false;
    o.llvm_cpu_fallback = false;
    o.accel.latency_hiding = point.latency_hiding;
    o.hw_config_value = cfg;
    CompileReport report;
    const rt::Artifact artifact = compileGraph(*w.graph, o, &report);
    // Module activity splits a program chain's cycles into its layers, so
    // that every offloaded step has its own count.
    driver::DeviceOptions dopts;
    dopts.record_activity = device_name == "cycle";
    std::unique_ptr<driver::Device> device = driver::createDevice(device_name, cfg, dopts);
    rt::ExecutorOptions eopts;
    eopts.device = device.get();
    eopts.profile = true;
    rt::Executor executor(artifact, eopts);
    executor.run({seededUniformInput(w.graph->inputs()[0]->type())});
    ConfirmedNetwork n;
    n.network = w.name;
    for (const rt::StepProfile& p : executor.profile()) {
      if (!p.on_device) continue;
      if (!p.device_stats.has_cycle_counters)
        throw Error("device '" + device_name + "' counts no cycles; confirm on the cycle-accurate simulator");
      n.measured_cycles += double(p.device_stats.cycles);
    }
    for (const accel::LayerDecision& d : report.layers)
      if (d.offloaded) n.estimated_cycles += d.estimate.cycles - d.chain_overlap;
    n.measured_ms = n.measured_cycles / (cfg.clock_mhz * 1e3);
    n.error = n.measured_cycles > 0 ? n.estimated_cycles / n.measured_cycles - 1 : 0;
    c.networks.push_back(n);
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace vdla::explore
