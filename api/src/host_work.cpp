#include "vdla/api/host_work.h"

#include <sstream>

#include "vdla/api/report_format.h"

namespace vdla::api {

namespace {

std::string kib(uint64_t bytes) { return formatNumber("%.1f KiB", double(bytes) / 1024.0); }
std::string ms(double seconds) { return formatNumber("%.2f ms", seconds * 1e3); }

}  // namespace

HostWork hostWork(const rt::Artifact& artifact, const std::vector<rt::StepProfile>& steps, const hw::HwConfig& cfg) {
  HostWork w;
  for (int32_t id : artifact.inputs) w.input_bytes += artifact.tensors.at(size_t(id)).type.byteSize();
  for (int32_t id : artifact.outputs) w.output_bytes += artifact.tensors.at(size_t(id)).type.byteSize();
  for (size_t s = 0; s < steps.size() && s < artifact.steps.size(); ++s) {
    const rt::StepProfile& p = steps[s];
    if (p.on_device) {
      ++w.offloaded_steps;
      w.transformed_bytes += p.host_transformed_bytes;
      w.uploaded_bytes += p.host_uploaded_bytes;
      w.downloaded_bytes += p.host_downloaded_bytes;
      w.kept_on_device_bytes += p.device_kept_bytes;
      w.offload_host_seconds += p.host_before_seconds + p.host_after_seconds;
      if (p.device_stats.has_cycle_counters) w.accelerator_cycles += double(p.device_stats.cycles);
      continue;
    }
    CpuStepWork c;
    c.name = p.name;
    c.kernel = p.kernel;
    c.seconds = p.seconds;
    for (int32_t id : artifact.steps[s].outputs)
      if (id >= 0) c.output_bytes += artifact.tensors.at(size_t(id)).type.byteSize();
    w.cpu_step_seconds += c.seconds;
    w.cpu_step_bytes += c.output_bytes;
    w.cpu_steps.push_back(std::move(c));
  }
  if (cfg.clock_mhz > 0) w.accelerator_seconds = w.accelerator_cycles / (cfg.clock_mhz * 1e6);
  return w;
}

nlohmann::json hostWorkJson(const HostWork& w) {
  nlohmann::json cpu = nlohmann::json::array();
  for (const auto& c : w.cpu_steps)
    cpu.push_back({{"name", c.name}, {"kernel", c.kernel}, {"seconds", c.seconds}, {"output_bytes", c.output_bytes}});
  return {{"input_bytes", w.input_bytes},
          {"output_bytes", w.output_bytes},
          {"offloaded_steps", w.offloaded_steps},
          {"transformed_bytes", w.transformed_bytes},
          {"uploaded_bytes", w.uploaded_bytes},
          {"downloaded_bytes", w.downloaded_bytes},
          {"offload_bytes", w.offloadBytes()},
          {"kept_on_device_bytes", w.kept_on_device_bytes},
          {"offload_host_seconds", w.offload_host_seconds},
          {"cpu_steps", cpu},
          {"cpu_step_seconds", w.cpu_step_seconds},
          {"cpu_step_bytes", w.cpu_step_bytes},
          {"host_seconds", w.hostSeconds()},
          {"accelerator_cycles", w.accelerator_cycles},
          {"accelerator_seconds", w.accelerator_seconds}};
}

std::string hostWorkText(const HostWork& w) {
  std::ostringstream o;
  o << "host work per inference (times on this machine):\n"
    << "  offloaded layers (" << w.offloaded_steps << "): host transforms " << kib(w.transformed_bytes)
    << ", packs and uploads " << kib(w.uploaded_bytes) << ", downloads and unpacks " << kib(w.downloaded_bytes)
    << " (input " << kib(w.input_bytes) << ", output " << kib(w.output_bytes) << "); " << ms(w.offload_host_seconds)
    << "\n"
    << "  kept in device memory instead of crossing to the host: " << kib(w.kept_on_device_bytes) << "\n"
    << "  CPU steps (" << w.cpu_steps.size() << "): " << ms(w.cpu_step_seconds) << ", writing "
    << kib(w.cpu_step_bytes);
  std::string names;
  for (size_t i = 0; i < w.cpu_steps.size() && i < 8; ++i) names += (i ? ", " : "") + w.cpu_steps[i].name;
  if (w.cpu_steps.size() > 8) names += ", ...";
  if (!names.empty()) o << " (" << names << ")";
  o << "\n";
  if (w.accelerator_cycles > 0)
    o << "  accelerator: " << formatNumber("%.0f", w.accelerator_cycles) << " cycles, " << ms(w.accelerator_seconds)
      << " at the config's clock; host " << ms(w.hostSeconds()) << " here\n";
  return o.str();
}

}  // namespace vdla::api
