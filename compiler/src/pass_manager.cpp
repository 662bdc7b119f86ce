#include "vdla/compiler/pass_manager.h"

#include <cstdio>

#include "vdla/compiler/ir/printer.h"
#include "vdla/compiler/ir/verifier.h"
#include "vdla/compiler/passes/canonicalize_pooling.h"
#include "vdla/compiler/passes/dead_code_elimination.h"
#include "vdla/compiler/passes/fuse_activations.h"
#include "vdla/compiler/passes/fuse_gemm.h"
#include "vdla/compiler/passes/qdq_to_integer_ops.h"
#include "vdla/compiler/passes/strip_qdq.h"
#include "vdla/compiler/passes/remove_identities.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/passes/simplify_reshapes.h"

namespace vdla {

void PassReport::print(std::ostream& out) const {
  char line[200];
  std::snprintf(line, sizeof line, "%-28s %10s %7s %7s  %s\n", "pass", "time (ms)", "nodes", "after", "changed");
  out << line;
  for (const PassRecord& r : passes) {
    const std::string name = r.target.empty() ? r.name : r.name + " (" + r.target + ")";
    std::snprintf(line, sizeof line, "%-28s %10.3f %7zu %7zu  %s\n", name.c_str(), r.seconds * 1e3, r.nodes_before,
                  r.nodes_after, r.changed ? "yes" : "no");
    out << line;
  }
  std::snprintf(line, sizeof line, "%-28s %10.3f\n", "total", total_seconds * 1e3);
  out << line;
}

PassManager& PassManager::addPass(std::string name, PassFn fn) {
  passes_.push_back({std::move(name), std::move(fn)});
  return *this;
}

std::vector<std::string> PassManager::passNames() const {
  std::vector<std::string> names;
  for (const Entry& e : passes_) names.push_back(e.name);
  return names;
}

PassReport PassManager::run(ir::Graph& graph) const {
  using Clock = std::chrono::steady_clock;
  PassReport report;
  for (const Entry& e : passes_) {
    PassRecord record;
    record.name = e.name;
    record.nodes_before = graph.numNodes();
    auto start = Clock::now();
    try {
      record.changed = e.fn(graph);
    } catch (const std::exception& ex) {
      throw PassError(e.name, "pass '" + e.name + "' failed: " + ex.what());
    }
    record.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    record.nodes_after = graph.numNodes();
    report.total_seconds += record.seconds;
    report.passes.push_back(record);
    if (options_.print_after_each && (record.changed || !options_.print_only_changed)) {
      *options_.print_after_each << "// ----- IR after " << e.name << (record.changed ? "" : " (unchanged)")
                                 << " -----\n";
      ir::printGraph(*options_.print_after_each, graph);
    }
    if (options_.verify_each) {
      try {
        ir::verifyGraphOrThrow(graph);
      } catch (const std::exception& ex) {
        throw PassError(e.name, "after pass '" + e.name + "': " + ex.what());
      }
    }
  }
  if (options_.timing_report) report.print(*options_.timing_report);
  return report;
}

void addStandardPipeline(PassManager& pm, const PipelineOptions& options) {
  if (options.fold_constants) {
    passes::ConstantFoldingOptions folding = options.constant_folding;
    pm.add("fold-constants", [folding](ir::Graph& g) { return passes::foldConstants(g, folding); });
  } else {
    pm.add("infer-shapes", [](ir::Graph& g) { passes::inferShapes(g); });
  }
  pm.add("remove-identities", passes::removeIdentities);
  if (options.strip_qdq)
    pm.add("strip-qdq", passes::stripQdq);
  else
    pm.add("qdq-to-integer-ops", passes::rewriteQdqToIntegerOps);
  if (options.fold_batchnorm) {
    passes::BatchNormFoldingOptions bn = options.batchnorm;
    pm.add("fold-batchnorm", [bn](ir::Graph& g) { return passes::foldBatchNorms(g, bn); });
  }
  if (options.fuse) {
    pm.add("canonicalize-pooling", passes::canonicalizePooling);
    pm.add("simplify-reshapes", passes::simplifyReshapes);
    pm.add("fuse-gemm-bias", passes::fuseGemmBias);
    pm.add("fuse-activations", passes::fuseActivations);
  }
  pm.add("eliminate-dead-code", passes::eliminateDeadCode);
  pm.add("infer-shapes", [](ir::Graph& g) { passes::inferShapes(g); });
}

PassReport runStandardPipeline(ir::Graph& graph, const PipelineOptions& options) {
  PassManagerOptions pm_options;
  pm_options.verify_each = options.verify_each;
  pm_options.print_after_each = options.print_after_each;
  pm_options.timing_report = options.timing_report;
  PassManager pm(pm_options);
  addStandardPipeline(pm, options);
  PassReport report = pm.run(graph);
  try {
    ir::verifyGraphOrThrow(graph, ir::VerifyOptions{true});
  } catch (const std::exception& e) {
    throw PassError("verify", std::string("after the standard pipeline: ") + e.what());
  }
  return report;
}

}  // namespace vdla
