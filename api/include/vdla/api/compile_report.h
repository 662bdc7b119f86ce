#pragma once
// The compile report as JSON: the passes that ran and, for target vdla, what
// the back end decided for every node (on the accelerator with its tiling's
// estimated cycles, or on the CPU with the reason and the code that runs it).
#include <nlohmann/json.hpp>

#include "vdla/compiler/compile.h"

namespace vdla::api {

// {"passes": [...], "layers": [...], "accelerator_steps": N, "cpu_steps": [...]}
// (the last three for target vdla only).
nlohmann::json compileReportJson(const CompileReport& report, const rt::Artifact& artifact);

}  // namespace vdla::api
