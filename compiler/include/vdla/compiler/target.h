// A compile target as the compile driver sees it: its name, whether this
// build contains it (and why not), and the ordered stages that take the
// optimised graph to an artifact. Every target is described this way; the
// table of them is vdla/compiler/target_registry.h (library vdla_targets,
// which links every back end), so that nothing here names a back end.
//
// Target stages run through the same bookkeeping as graph passes
// (pass_manager.h, with the same PassManagerOptions): each is timed into the
// CompileReport's PassReport (PassRecord::target names the target), verified
// after it ran (the graph verifier after a graph stage, Artifact::validate
// after an artifact stage, and the stage's own check), printed with
// --print-after-all (the IR after a graph stage, a summary of the artifact
// after an artifact stage, or what the stage prints itself), and a failure is
// a PassError naming the stage and the target.
#pragma once

#include <any>
#include <functional>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "vdla/compiler/compile_options.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/artifact.h"

namespace vdla {

// What the stages of one compilation share: the graph (rewritten in place by
// graph stages), the artifact (made by the first artifact stage, transformed
// by the later ones) and the target's own plan between its stages.
struct TargetState {
  ir::Graph& graph;
  const CompileOptions& options;
  const hw::HwConfig& config;
  CompileReport& report;
  std::optional<rt::Artifact> artifact;
  // Whatever a target's stages hand on besides the graph and the artifact
  // (the vdla target's per-layer plan, accel/lowering.h): set by the stage
  // that starts it, dropped with the compilation. Its type is the target's
  // business, so that this driver is the same for every target.
  std::any plan = {};

  // The plan as the T its first stage made; std::logic_error when none did.
  template <class T>
  T& planAs() {
    if (T* p = std::any_cast<T>(&plan)) return *p;
    throw std::logic_error("no earlier stage made this stage's plan");
  }
  template <class T>
  const T& planAs() const {
    if (const T* p = std::any_cast<T>(&plan)) return *p;
    throw std::logic_error("no earlier stage made this stage's plan");
  }
};

enum class StageKind {
  Graph,     // rewrites the graph: verified by the graph verifier, printed as IR
  Artifact,  // makes or transforms the artifact: validated, printed as a summary
  Plan,      // adds to TargetState::plan: verified and printed by the stage alone
};

// Which CompileReport figure a stage's time adds to (quantize_seconds or
// lowering_seconds), which the CLI, the API and Python report.
enum class StagePhase { Quantize, Lowering };

struct TargetStage {
  std::string name;
  StageKind kind = StageKind::Graph;
  StagePhase phase = StagePhase::Lowering;
  // Returns whether it changed anything: a stage with nothing to do (quantize
  // on a graph that is quantised already) returns false and is still recorded.
  std::function<bool(TargetState&)> run;
  // --print-after-all: what the stage decided, printed instead of its kind's
  // view (a plan has none; an artifact summary does not show a check).
  std::function<void(std::ostream&, const TargetState&)> print = {};
  // The stage's own check of its output, after its kind's (which a plan
  // stage lacks); throws naming what is wrong.
  std::function<void(const TargetState&)> verify = {};
};

struct Target {
  std::string name;
  std::string summary;  // one line: what the artifact runs on
  bool available = false;
  std::string unavailable_reason;  // why this build lacks it (when !available)
  std::vector<TargetStage> stages;

  std::vector<std::string> stageNames() const;
};

// Runs the target's stages in order on state (the graph optimised and
// verified with every value typed), appending a record per stage to
// state.report.passes and adding each stage's time to its phase's figure.
// The last stage must leave an artifact. Throws PassError naming the stage
// and the target.
rt::Artifact runTargetStages(const Target& target, TargetState& state, const PassManagerOptions& options);

// The whole compilation for one target: the standard pipeline (unless
// options.optimize is off, when the graph must be typed and verified as it
// is), then the target's stages with the pipeline's verify/print options; the
// timing table (options.pipeline.timing_report) covers both. The artifact is
// stamped with the hardware configuration. The target need not be in the
// registry (tests run made-up ones).
rt::Artifact compileForTarget(ir::Graph& graph, const CompileOptions& options, const Target& target,
                              CompileReport* report = nullptr);

}  // namespace vdla
