#include "vdla/api/compile_report.h"

namespace vdla::api {

nlohmann::json compileReportJson(const CompileReport& report, const rt::Artifact& artifact) {
  nlohmann::json j;
  nlohmann::json passes = nlohmann::json::array();
  for (const auto& p : report.passes.passes)
    // A target stage names its target; a graph pass has none.
    passes.push_back({{"name", p.name},
                      {"target", p.target.empty() ? nlohmann::json() : nlohmann::json(p.target)},
                      {"changed", p.changed},
                      {"seconds", p.seconds},
                      {"nodes_before", p.nodes_before},
                      {"nodes_after", p.nodes_after}});
  j["passes"] = passes;
  if (artifact.target == "llvm") {
    // Operators the generated code lacks run on their reference kernels.
    nlohmann::json reference = nlohmann::json::array();
    for (const auto& step : artifact.steps)
      if (step.kernel.rfind("ref.", 0) == 0) reference.push_back({{"name", step.name}, {"kernel", step.kernel}});
    j["reference_steps"] = reference;
  }
  if (artifact.target != "vdla") return j;
  nlohmann::json layers = nlohmann::json::array(), cpu = nlohmann::json::array();
  size_t offloaded = 0;
  for (const auto& l : report.layers) {
    nlohmann::json layer = {{"name", l.name}, {"op", l.op}, {"offloaded", l.offloaded}};
    if (l.offloaded) {
      ++offloaded;
      layer["input_shape"] = l.input_shape;
      layer["output_shape"] = l.output_shape;
      layer["macs"] = l.macs;
      layer["im2col"] = l.im2col;
      layer["space_to_depth"] = l.space_to_depth;
      layer["unfold_columns"] = l.unfold_columns;
      layer["estimated_cycles"] = l.estimate.cycles;
      layer["estimated_gemm_cycles"] = l.estimate.gemm_cycles;
      layer["instructions"] = l.instructions;
    } else {
      layer["why_on_cpu"] = l.reason;
      layer["code"] = l.cpu_code;
      layer["why_not_llvm"] = l.cpu_reason;
      cpu.push_back({{"name", l.name},
                     {"op", l.op},
                     {"why_on_cpu", l.reason},
                     {"code", l.cpu_code},
                     {"why_not_llvm", l.cpu_reason}});
    }
    layers.push_back(layer);
  }
  j["layers"] = layers;
  j["cpu_steps"] = cpu;
  j["accelerator_steps"] = offloaded;
  return j;
}

}  // namespace vdla::api
