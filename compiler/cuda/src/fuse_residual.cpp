#include "fuse_residual.h"

#include <vector>

namespace vdla::cuda {

namespace {

bool isOp(const rt::ArtifactStep& s, const char* op) { return s.kernel == std::string("ref.") + op; }

}  // namespace

size_t fuseResidualAdds(rt::Artifact& plan) {
  const size_t n = plan.tensors.size();
  // Readers of every tensor (a step reading it twice counts twice).
  std::vector<std::vector<size_t>> readers(n);
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (int32_t id : plan.steps[s].inputs)
      if (id >= 0) readers[id].push_back(s);
  std::vector<char> is_output(n, 0);
  for (int32_t id : plan.outputs) is_output[id] = 1;

  std::vector<char> removed(plan.steps.size(), 0);
  size_t fused = 0;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const rt::ArtifactStep& conv = plan.steps[s];
    if (!isOp(conv, "Conv") || conv.outputs.size() != 1 || conv.inputs.size() < 2) continue;
    const int32_t t = conv.outputs[0];
    if (is_output[t] || readers[t].size() != 1) continue;
    const size_t a = readers[t][0];
    rt::ArtifactStep& add = plan.steps[a];
    if (!isOp(add, "Add") || add.inputs.size() != 2 || add.outputs.size() != 1 || removed[a]) continue;
    const int32_t other = add.inputs[0] == t ? add.inputs[1] : add.inputs[0];
    const rt::TensorType& yt = plan.tensors[add.outputs[0]].type;
    if (other < 0 || plan.tensors[t].type.dtype != rt::DType::F32 || !(plan.tensors[t].type == yt) ||
        !(plan.tensors[other].type == yt))
      continue;
    const std::string add_act = add.attrs.getString("activation", "");
    if (!add_act.empty() && add_act != "Relu") continue;

    rt::ArtifactStep f;
    f.kernel = conv.kernel;
    f.name = conv.name + "+" + add.name;
    f.inputs = {conv.inputs[0], conv.inputs[1], conv.inputs.size() > 2 ? conv.inputs[2] : -1, other};
    f.outputs = add.outputs;
    f.attrs = conv.attrs;
    f.attrs.set("cuda.residual", int64_t{1});
    if (!add_act.empty()) f.attrs.set("cuda.residual_activation", add_act);
    add = std::move(f);
    removed[s] = 1;
    ++fused;
  }
  std::vector<rt::ArtifactStep> kept;
  for (size_t s = 0; s < plan.steps.size(); ++s)
    if (!removed[s]) kept.push_back(std::move(plan.steps[s]));
  plan.steps = std::move(kept);
  return fused;
}

}  // namespace vdla::cuda
