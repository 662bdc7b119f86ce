#pragma once
// Options of the commands that compile for the accelerator (compile, run,
// profile): --latency-hiding, --calib, --calib-count, --no-im2col, --no-unfold, --strip-qdq,
// --cpu-kernels, and the
// calibration samples they name.
#include <string>
#include <vector>

#include "cli.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/ir/graph.h"

namespace vdla::cli {

// `latency_hiding_option`: add --latency-hiding (profile adds its own list form).
void addAccelOptions(po::options_description& options, bool latency_hiding_option = true);

// "on"/"off" (also true/false, 1/0); throws UsageError otherwise.
bool parseOnOff(const std::string& value, const std::string& option);

// Fills copts.accel and copts.calibration (images from --calib, preprocessed
// for the graph's input) from the options. Prints calibration progress to
// stderr unless `quiet`.
void applyAccelOptions(const po::variables_map& vm, const ir::Graph& graph, CompileOptions& copts, bool quiet);

}  // namespace vdla::cli
