#pragma once
// The keyword options the Python layer passes down as JSON objects, read into
// the toolkit's option structs. An unknown key is an error naming it, so that
// a misspelt option never goes unnoticed.
#include <nlohmann/json.hpp>
#include <string>

#include "vdla/api/explore.h"
#include "vdla/api/model_source.h"
#include "vdla/compiler/compile.h"
#include "vdla/hw/config.h"

namespace vdla::python {

// A config given as a shipped name, a file, or JSON text (starting with '{').
hw::HwConfig configFromSpec(const std::string& spec);

// Keys: target, config, latency_hiding, allow_im2col, allow_unfold, strip_qdq, cpu_kernels
// ("llvm"|"ref"), library ("host"|"armv7"|"aarch64"|"" for the JIT), optimize,
// cuda_arch (list), cuda_tf32.
CompileOptions compileOptionsFromJson(const nlohmann::json& j);

// Keys: batch, image_size, seed.
api::ModelOptions modelOptionsFromJson(const nlohmann::json& j);

// Keys: space (design-space JSON object), networks, model_options,
// compile_options, clock_cap_mhz, threads, cache, confirm, yosys, yosys_dir,
// marks, progress (bool: lines on stderr).
api::ExploreOptions exploreOptionsFromJson(const nlohmann::json& j);

}  // namespace vdla::python
