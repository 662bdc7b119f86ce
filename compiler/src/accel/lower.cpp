// lowerForAccelerator: the accelerator lowering's phases (accel/lowering.h)
// in one call, for callers outside the target stages. The stages run the same
// phases, so both make the same artifact.
#include "vdla/compiler/accel/lower.h"

#include "vdla/compiler/accel/lowering.h"

namespace vdla::accel {

rt::Artifact lowerForAccelerator(const ir::Graph& graph, const hw::HwConfig& cfg, const AccelOptions& options,
                                 std::vector<LayerDecision>* decisions) {
  AccelLowering lowering = partitionForAccelerator(graph, cfg, options);
  planActivationArena(graph, cfg, lowering);
  rt::Artifact a = generateAccelArtifact(graph, cfg, options, lowering);
  checkArtifactTokens(a, cfg);
  if (decisions)
    for (LayerDecision& d : lowering.decisions) decisions->push_back(std::move(d));
  return a;
}

}  // namespace vdla::accel
