#pragma once
// The host's share of an inference on the accelerator, from a profiled run:
// what the host does to the data of the offloaded layers (transforms such as
// the stem's im2col, packing and uploads, downloads and unpacking), the CPU
// steps it runs, and the accelerator's own time at the config's clock. On a
// board the host is the SoC's ARM core; the times here are this machine's.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/executor.h"

namespace vdla::api {

struct CpuStepWork {
  std::string name, kernel;
  double seconds = 0;
  uint64_t output_bytes = 0;  // what it writes
};

// The board's end-to-end latency estimated from the host's work: its bytes
// and steps at the rates of the board's host processor (hw/board_host.h),
// plus the accelerator's cycles at the config's clock. The host and the
// accelerator take turns (each offloaded step runs to completion before the
// next host step), so the two add.
struct BoardEstimate {
  std::string board, core;
  double clock_mhz = 0, instructions_per_cycle = 1;
  double pack_instructions = 0, unpack_instructions = 0, cpu_step_instructions = 0, runtime_instructions = 0;
  double host_seconds = 0, accelerator_seconds = 0;
  double hostInstructions() const {
    return pack_instructions + unpack_instructions + cpu_step_instructions + runtime_instructions;
  }
  double totalSeconds() const { return host_seconds + accelerator_seconds; }
  double hostShare() const { return totalSeconds() > 0 ? host_seconds / totalSeconds() : 0; }
};

struct HostWork {
  // The floor: the network's input and output tensors.
  uint64_t input_bytes = 0, output_bytes = 0;
  // Offloaded layers: bytes the host transformed, packed and uploaded,
  // downloaded and unpacked; and the host's time on them.
  uint64_t transformed_bytes = 0, uploaded_bytes = 0, downloaded_bytes = 0;
  uint64_t packed_data_bytes = 0;  // of the uploaded bytes, the tensors' own
  uint64_t unfolded_bytes = 0;     // and those a column unfold copied
  // Packed inputs read and outputs left in device memory: what the host
  // would also pack or unpack if every layer's activations crossed to it.
  uint64_t kept_on_device_bytes = 0;
  double offload_host_seconds = 0;
  size_t offloaded_steps = 0;
  // Steps run on the CPU.
  std::vector<CpuStepWork> cpu_steps;
  double cpu_step_seconds = 0;
  uint64_t cpu_step_bytes = 0;  // what they write
  // The accelerator: cycles its timing model counted (0 on fsim), and their
  // time at the config's clock.
  double accelerator_cycles = 0, accelerator_seconds = 0;
  // On a board whose host processor is on record, with accelerator cycles
  // counted (a timing device).
  std::optional<BoardEstimate> board;

  // Bytes the host moves or transforms for the offloaded layers.
  uint64_t offloadBytes() const { return transformed_bytes + uploaded_bytes + downloaded_bytes; }
  double hostSeconds() const { return offload_host_seconds + cpu_step_seconds; }
};

// From the step profiles of one run of `artifact` (Executor::profile()).
HostWork hostWork(const rt::Artifact& artifact, const std::vector<rt::StepProfile>& steps, const hw::HwConfig& cfg);

nlohmann::json hostWorkJson(const HostWork& work);
// A few lines for reports.
std::string hostWorkText(const HostWork& work);

}  // namespace vdla::api
