#include "options.h"

#include <iostream>
#include <set>

#include "vdla/hw/error.h"

namespace vdla::python {

namespace {

void checkKeys(const nlohmann::json& j, const std::set<std::string>& known, const std::string& what) {
  if (!j.is_object()) throw Error(what + ": expected an object of options");
  for (const auto& [key, value] : j.items())
    if (!known.count(key)) {
      std::string names;
      for (const auto& k : known) names += (names.empty() ? "" : ", ") + k;
      throw Error(what + ": unknown option '" + key + "' (known: " + names + ")");
    }
}

template <typename T>
T get(const nlohmann::json& j, const std::string& key, const std::string& what) {
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(what + ": option '" + key + "' has the wrong type (" + j.at(key).dump() + ")");
  }
}

}  // namespace

hw::HwConfig configFromSpec(const std::string& spec) {
  if (!spec.empty() && spec.front() == '{') return hw::parseConfig(spec, "<python config>");
  return hw::loadConfig(spec);
}

CompileOptions compileOptionsFromJson(const nlohmann::json& j) {
  const std::string what = "compile";
  checkKeys(j,
            {"target", "config", "latency_hiding", "allow_im2col", "allow_unfold", "offload_pooling", "offload_adds",
             "fuse_additions", "fuse_expansions", "chain_layers", "strip_qdq", "cpu_kernels", "library", "optimize",
             "cuda_arch", "cuda_tf32"},
            what);
  CompileOptions o;
  if (j.contains("target")) o.target = get<std::string>(j, "target", what);
  if (j.contains("config")) {
    const hw::HwConfig cfg = configFromSpec(get<std::string>(j, "config", what));
    o.hw_config = cfg.name;
    o.hw_config_value = cfg;
  }
  if (j.contains("latency_hiding")) o.accel.latency_hiding = get<bool>(j, "latency_hiding", what);
  if (j.contains("allow_im2col")) o.accel.allow_im2col = get<bool>(j, "allow_im2col", what);
  if (j.contains("allow_unfold")) o.accel.allow_unfold = get<bool>(j, "allow_unfold", what);
  if (j.contains("offload_pooling")) o.accel.offload_pooling = get<bool>(j, "offload_pooling", what);
  if (j.contains("offload_adds")) o.accel.offload_adds = get<bool>(j, "offload_adds", what);
  if (j.contains("fuse_additions")) o.accel.fuse_additions = get<bool>(j, "fuse_additions", what);
  if (j.contains("fuse_expansions")) o.accel.fuse_expansions = get<bool>(j, "fuse_expansions", what);
  if (j.contains("chain_layers")) o.accel.chain_layers = get<bool>(j, "chain_layers", what);
  if (j.contains("strip_qdq")) o.pipeline.strip_qdq = get<bool>(j, "strip_qdq", what);
  if (j.contains("cpu_kernels")) {
    const std::string k = get<std::string>(j, "cpu_kernels", what);
    if (k != "llvm" && k != "ref") throw Error("compile: cpu_kernels takes 'llvm' or 'ref', got '" + k + "'");
    o.llvm_cpu_fallback = k == "llvm";
  }
  if (j.contains("library")) {
    o.llvm_library_cpu = get<std::string>(j, "library", what);
    if (o.llvm_library_cpu != "" && o.llvm_library_cpu != "host" && o.llvm_library_cpu != "armv7" &&
        o.llvm_library_cpu != "aarch64")
      throw Error("compile: library takes 'host', 'armv7', 'aarch64' or None (the JIT), got '" + o.llvm_library_cpu +
                  "'");
  }
  if (j.contains("optimize")) o.optimize = get<bool>(j, "optimize", what);
  if (j.contains("cuda_arch")) o.cuda.archs = get<std::vector<std::string>>(j, "cuda_arch", what);
  if (j.contains("cuda_tf32")) o.cuda.tf32_tensor_cores = get<bool>(j, "cuda_tf32", what);
  return o;
}

api::ModelOptions modelOptionsFromJson(const nlohmann::json& j) {
  const std::string what = "model";
  checkKeys(j, {"batch", "image_size", "seed"}, what);
  api::ModelOptions o;
  if (j.contains("batch")) o.batch = get<int64_t>(j, "batch", what);
  if (j.contains("image_size")) o.image_size = get<int64_t>(j, "image_size", what);
  if (j.contains("seed")) o.seed = get<uint64_t>(j, "seed", what);
  return o;
}

api::ExploreOptions exploreOptionsFromJson(const nlohmann::json& j) {
  const std::string what = "explore";
  checkKeys(j,
            {"space", "networks", "model_options", "compile_options", "clock_cap_mhz", "objective", "threads", "cache",
             "confirm", "yosys", "yosys_dir", "marks", "progress"},
            what);
  api::ExploreOptions o;
  if (j.contains("space")) o.space = explore::parseDesignSpace(j.at("space").dump(), "explore space");
  if (j.contains("networks")) o.networks = get<std::vector<std::string>>(j, "networks", what);
  if (j.contains("model_options")) o.model_options = modelOptionsFromJson(j.at("model_options"));
  if (j.contains("compile_options")) o.compile_options = compileOptionsFromJson(j.at("compile_options"));
  if (j.contains("clock_cap_mhz") && !j.at("clock_cap_mhz").is_null())
    o.clock_cap_mhz = get<double>(j, "clock_cap_mhz", what);
  if (j.contains("objective")) {
    try {
      o.objective = explore::parseObjective(get<std::string>(j, "objective", what));
    } catch (const std::invalid_argument& e) {
      throw Error(what + ": " + e.what());
    }
  }
  if (j.contains("threads")) o.sweep.threads = get<unsigned>(j, "threads", what);
  if (j.contains("cache")) o.sweep.cache_path = get<std::string>(j, "cache", what);
  if (j.contains("confirm")) o.confirm = get<int>(j, "confirm", what);
  if (j.contains("yosys")) o.yosys = get<int>(j, "yosys", what);
  if (j.contains("yosys_dir")) o.yosys_dir = get<std::string>(j, "yosys_dir", what);
  if (j.contains("marks")) o.marks = get<std::vector<std::string>>(j, "marks", what);
  if (j.contains("progress") && get<bool>(j, "progress", what))
    o.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  return o;
}

}  // namespace vdla::python
