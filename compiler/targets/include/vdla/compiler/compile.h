// The compile driver: optimises a graph with the standard pipeline and runs
// the stages of a target from the target table (target_registry.h) to make
// an artifact. Link vdla_targets (or libvdla) for it; every target this build
// contains is then available, with nothing to register.
#pragma once

#include "vdla/compiler/compile_options.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/stages.h"
#include "vdla/compiler/target.h"
#include "vdla/compiler/target_registry.h"
#include "vdla/runtime/artifact.h"

namespace vdla {

// Optimises `graph` in place and lowers it for options.target. Throws
// std::invalid_argument for an unknown target, std::runtime_error for one
// this build lacks, and PassError naming the pass, or the stage and target.
rt::Artifact compileGraph(ir::Graph& graph, const CompileOptions& options, CompileReport* report = nullptr);

}  // namespace vdla
