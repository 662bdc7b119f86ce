// The compile driver: optimises a graph with the standard pipeline and lowers
// it to an artifact for a target. Lowering for target "ref" is one step per
// node, running the node's reference kernel ("ref.Conv") with the node's
// attributes; the other targets join with their backends.
#pragma once

#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/runtime/artifact.h"

namespace vdla {

struct CompileOptions {
  std::string target = "ref";
  // A built-in hardware config name or a JSON file; its name and hash are
  // stamped into the artifact (and, for target vdla, bound the code generator).
  std::string hw_config = "pynq";
  PipelineOptions pipeline;
  // Run the standard pipeline (off: lower the graph as it is; it must be typed).
  bool optimize = true;
};

struct CompileReport {
  PassReport passes;
  double pipeline_seconds = 0;
  double lowering_seconds = 0;
};

// Every target name the compiler knows, and whether this build can compile for it.
std::vector<std::string> compileTargets();
bool isTargetAvailable(const std::string& target);

// Optimises `graph` in place and lowers it. Throws std::runtime_error (a
// PassError from the pipeline) with a message naming the target, pass or node.
rt::Artifact compileGraph(ir::Graph& graph, const CompileOptions& options, CompileReport* report = nullptr);

// Lowering alone: a typed, verified graph to an execution plan for `target`,
// stamped with the hardware config. Only values the plan reads are kept.
rt::Artifact lowerToArtifact(const ir::Graph& graph, const std::string& target, const std::string& hw_config_name,
                             uint64_t hw_config_hash);

}  // namespace vdla
