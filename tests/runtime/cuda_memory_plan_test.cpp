// The device-memory plan of the CUDA session (no GPU needed): tensors alive at
// the same time never share bytes, offsets are aligned, and finished tensors'
// memory is reused.
#include <gtest/gtest.h>

#include "memory_plan.h"

namespace vdla::rt::cuda {
namespace {

// A chain x -> s0 -> t0 -> s1 -> t1 ... with a skip from t0 to the last step.
Artifact chain(int steps) {
  Artifact a;
  auto tensor = [&](const std::string& name, int64_t n) {
    ArtifactTensor t;
    t.name = name;
    t.type = TensorType{DType::F32, {n}, Layout::RowMajor};
    a.tensors.push_back(t);
    return static_cast<int32_t>(a.tensors.size() - 1);
  };
  int32_t prev = tensor("x", 1000);
  a.inputs = {prev};
  int32_t t0 = -1;
  for (int s = 0; s < steps; ++s) {
    const int32_t out = tensor("t" + std::to_string(s), 1000 + 100 * s);
    ArtifactStep st;
    st.kernel = "cuda.launch";
    st.inputs = {prev};
    if (s == steps - 1 && t0 >= 0) st.inputs.push_back(t0);
    st.outputs = {out};
    a.steps.push_back(st);
    if (s == 0) t0 = out;
    prev = out;
  }
  a.outputs = {prev};
  return a;
}

TEST(CudaMemoryPlan, LiveTensorsNeverOverlap) {
  const Artifact a = chain(12);
  const MemoryPlan p = planMemory(a);
  size_t total = 0;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    ASSERT_NE(p.offset[i], MemoryPlan::kNone);
    EXPECT_EQ(p.offset[i] % MemoryPlan::kAlignment, 0u);
    total += a.tensors[i].type.byteSize();
    for (size_t j = 0; j < i; ++j) {
      const bool live_together = p.first[i] <= p.last[j] && p.first[j] <= p.last[i];
      const bool overlap = p.offset[i] < p.offset[j] + a.tensors[j].type.byteSize() &&
                           p.offset[j] < p.offset[i] + a.tensors[i].type.byteSize();
      EXPECT_FALSE(live_together && overlap) << a.tensors[i].name << " and " << a.tensors[j].name;
    }
    EXPECT_LE(p.offset[i] + a.tensors[i].type.byteSize(), p.arena_bytes);
  }
  // Memory of finished steps is reused: far less than every tensor at once.
  EXPECT_LT(p.arena_bytes, total / 2);
  // The skip keeps t0 alive to the last step, the graph output to the end.
  EXPECT_EQ(p.first[1], 0);
  EXPECT_EQ(p.last[1], 11);
  EXPECT_EQ(p.last[a.outputs[0]], 12);
}

TEST(CudaMemoryPlan, ConstantsAndUnusedTensorsGetNoArenaSpace) {
  Artifact a = chain(2);
  ArtifactTensor w;
  w.name = "w";
  w.type = TensorType{DType::F32, {4}, Layout::RowMajor};
  w.constant = Tensor(DType::F32, {4});
  a.tensors.push_back(w);
  a.steps[0].inputs.push_back(static_cast<int32_t>(a.tensors.size() - 1));
  ArtifactTensor unused;
  unused.name = "unused";
  unused.type = TensorType{DType::F32, {4}, Layout::RowMajor};
  a.tensors.push_back(unused);
  const MemoryPlan p = planMemory(a);
  EXPECT_EQ(p.offset[a.tensors.size() - 2], MemoryPlan::kNone);
  EXPECT_EQ(p.offset[a.tensors.size() - 1], MemoryPlan::kNone);
}

}  // namespace
}  // namespace vdla::rt::cuda
