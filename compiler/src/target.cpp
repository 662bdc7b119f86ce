// The target stages' driver: the graph passes' bookkeeping (pass_manager.cpp)
// applied to stages that may work on the artifact instead of the graph.
#include "vdla/compiler/target.h"

#include <chrono>

#include "vdla/compiler/artifact_summary.h"
#include "vdla/compiler/ir/printer.h"
#include "vdla/compiler/ir/verifier.h"

namespace vdla {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string stageLabel(const Target& target, const TargetStage& stage) {
  return "target '" + target.name + "' stage '" + stage.name + "'";
}

void printAfter(std::ostream& out, const Target& target, const TargetStage& stage, bool changed,
                const TargetState& state) {
  const char* what = stage.kind == StageKind::Graph ? "IR" : stage.kind == StageKind::Artifact ? "artifact" : "plan";
  out << "// ----- " << what << " after " << stage.name << " (target " << target.name << ")"
      << (changed ? "" : " (unchanged)") << " -----\n";
  if (stage.print)
    stage.print(out, state);
  else if (stage.kind == StageKind::Graph)
    ir::printGraph(out, state.graph);
  else if (stage.kind == StageKind::Artifact && state.artifact)
    printArtifactSummary(out, *state.artifact);
}

// Graph stages leave a typed graph (the lowering needs every type); artifact
// stages leave a valid artifact; each stage's own check comes after.
void verifyAfter(const Target& target, const TargetStage& stage, const TargetState& state) {
  try {
    if (stage.kind == StageKind::Graph) {
      ir::verifyGraphOrThrow(state.graph, ir::VerifyOptions{true});
    } else if (stage.kind == StageKind::Artifact) {
      if (!state.artifact) throw std::runtime_error("it made no artifact");
      state.artifact->validate("artifact");
    }
    if (stage.verify) stage.verify(state);
  } catch (const std::exception& e) {
    throw PassError(stage.name, "after " + stageLabel(target, stage) + ": " + e.what(), target.name);
  }
}

}  // namespace

std::vector<std::string> Target::stageNames() const {
  std::vector<std::string> names;
  for (const TargetStage& s : stages) names.push_back(s.name);
  return names;
}

rt::Artifact runTargetStages(const Target& target, TargetState& state, const PassManagerOptions& options) {
  for (const TargetStage& stage : target.stages) {
    PassRecord record;
    record.name = stage.name;
    record.target = target.name;
    record.nodes_before = state.graph.numNodes();
    const Clock::time_point start = Clock::now();
    try {
      record.changed = stage.run(state);
    } catch (const std::exception& e) {
      throw PassError(stage.name, stageLabel(target, stage) + " failed: " + e.what(), target.name);
    }
    record.seconds = secondsSince(start);
    record.nodes_after = state.graph.numNodes();
    // Every artifact names the config it was compiled for, whichever back end made it.
    if (state.artifact) {
      state.artifact->hw_config_name = state.config.name;
      state.artifact->hw_config_hash = state.config.hash;
    }
    state.report.passes.total_seconds += record.seconds;
    (stage.phase == StagePhase::Quantize ? state.report.quantize_seconds : state.report.lowering_seconds) +=
        record.seconds;
    state.report.passes.passes.push_back(record);
    if (options.print_after_each && (record.changed || !options.print_only_changed))
      printAfter(*options.print_after_each, target, stage, record.changed, state);
    if (options.verify_each) verifyAfter(target, stage, state);
  }
  if (!state.artifact)
    throw PassError(target.stages.empty() ? "" : target.stages.back().name,
                    "target '" + target.name + "': its stages made no artifact", target.name);
  return std::move(*state.artifact);
}

rt::Artifact compileForTarget(ir::Graph& graph, const CompileOptions& options, const Target& target,
                              CompileReport* report) {
  const hw::HwConfig cfg = options.hw_config_value ? *options.hw_config_value : hw::loadConfig(options.hw_config);
  CompileReport local;
  CompileReport& r = report ? *report : local;
  r.passes = {};
  r.quantize_seconds = r.lowering_seconds = 0;

  // The timing table comes once, after the target stages, covering both.
  PipelineOptions pipeline = options.pipeline;
  pipeline.timing_report = nullptr;
  const Clock::time_point start = Clock::now();
  if (options.optimize)
    r.passes = runStandardPipeline(graph, pipeline);
  else
    ir::verifyGraphOrThrow(graph, ir::VerifyOptions{true});
  r.pipeline_seconds = secondsSince(start);

  PassManagerOptions stage_options;
  stage_options.verify_each = options.pipeline.verify_each;
  stage_options.print_after_each = options.pipeline.print_after_each;
  TargetState state{graph, options, cfg, r, std::nullopt};
  rt::Artifact a = runTargetStages(target, state, stage_options);
  if (options.pipeline.timing_report) r.passes.print(*options.pipeline.timing_report);
  return a;
}

}  // namespace vdla
