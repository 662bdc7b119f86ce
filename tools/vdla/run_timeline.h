#pragma once
// One Chrome/Perfetto timeline (ui.perfetto.dev, chrome://tracing) of a whole
// network run: every step on the host track (CPU kernels; for accelerator
// steps the host's packing and transfers before and after), and every
// accelerator program with its modules' activity on the accelerator tracks.
// One time axis: host work at its measured time on this machine, accelerator
// work at its cycles converted at the config's clock (a simulator's own
// running time is not the accelerator's and is left out).
#include <string>
#include <vector>

#include "vdla/runtime/executor.h"

namespace vdla::cli {

// `clock_mhz` converts cycles (0: no accelerator, or one without timing, in
// which case a device step shows its host time). Throws vdla::Error when the
// file cannot be written. Returns the number of events written.
size_t writeRunTimeline(const std::string& path, const std::vector<rt::StepProfile>& steps, const std::string& title,
                        double clock_mhz);

}  // namespace vdla::cli
