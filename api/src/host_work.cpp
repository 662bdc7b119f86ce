#include "vdla/api/host_work.h"

#include <algorithm>
#include <sstream>

#include "vdla/api/report_format.h"
#include "vdla/hw/board_host.h"

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
      w.packed_data_bytes += p.host_packed_data_bytes;
      w.unfolded_bytes += p.host_unfolded_bytes;
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
  const std::optional<hw::BoardHost> host = hw::boardHost(cfg);
  if (host && w.accelerator_cycles > 0) {
    BoardEstimate b;
    b.board = host->board;
    b.core = host->core;
    b.clock_mhz = host->clock_mhz;
    b.instructions_per_cycle = host->instructions_per_cycle;
    b.pack_instructions = double(w.packed_data_bytes) * host->pack_per_byte +
                          double(w.unfolded_bytes) * host->unfold_per_byte +
                          double(w.uploaded_bytes) * host->upload_per_byte;
    b.unpack_instructions = double(w.downloaded_bytes) * host->unpack_per_byte;
    b.cpu_step_instructions = double(w.cpu_step_bytes) * host->cpu_step_per_byte;
    b.runtime_instructions = double(std::min(steps.size(), artifact.steps.size())) * host->per_step;
    b.host_seconds = host->seconds(b.hostInstructions());
    b.accelerator_seconds = w.accelerator_seconds;
    w.board = b;
  }
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
          {"packed_data_bytes", w.packed_data_bytes},
          {"unfolded_bytes", w.unfolded_bytes},
          {"downloaded_bytes", w.downloaded_bytes},
          {"offload_bytes", w.offloadBytes()},
          {"kept_on_device_bytes", w.kept_on_device_bytes},
          {"offload_host_seconds", w.offload_host_seconds},
          {"cpu_steps", cpu},
          {"cpu_step_seconds", w.cpu_step_seconds},
          {"cpu_step_bytes", w.cpu_step_bytes},
          {"host_seconds", w.hostSeconds()},
          {"accelerator_cycles", w.accelerator_cycles},
          {"accelerator_seconds", w.accelerator_seconds},
          {"board", w.board ? nlohmann::json{{"board", w.board->board},
                                             {"core", w.board->core},
                                             {"clock_mhz", w.board->clock_mhz},
                                             {"instructions_per_cycle", w.board->instructions_per_cycle},
                                             {"pack_instructions", w.board->pack_instructions},
                                             {"unpack_instructions", w.board->unpack_instructions},
                                             {"cpu_step_instructions", w.board->cpu_step_instructions},
                                             {"runtime_instructions", w.board->runtime_instructions},
                                             {"host_seconds", w.board->host_seconds},
                                             {"accelerator_seconds", w.board->accelerator_seconds},
                                             {"end_to_end_seconds", w.board->totalSeconds()},
                                             {"host_share", w.board->hostShare()}}
                            : nlohmann::json(nullptr)}};
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
  if (w.board) {
    const BoardEstimate& b = *w.board;
    auto mi = [](double n) { return formatNumber("%.2f M", n / 1e6); };
    o << "  board estimate (" << b.board << ", " << b.core << " at " << formatNumber("%.0f", b.clock_mhz)
      << " MHz, one instruction per cycle assumed; rates counted under qemu, benchmarks/board_host): host "
      << mi(b.hostInstructions()) << " instructions (packing " << mi(b.pack_instructions) << ", unpacking "
      << mi(b.unpack_instructions) << ", CPU steps " << mi(b.cpu_step_instructions) << ", runtime "
      << mi(b.runtime_instructions) << ") = " << ms(b.host_seconds) << "; accelerator " << ms(b.accelerator_seconds)
      << "; end to end " << ms(b.totalSeconds()) << ", host " << formatNumber("%.1f%%", 100 * b.hostShare()) << "\n";
  }
  return o.str();
}

}  // namespace vdla::api
