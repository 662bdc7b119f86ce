// compileGraph and lowerToArtifact: the plan mirrors the optimised graph, and
// the artifact executor (after a round trip through the file format) gives
// bit-identical results to the reference executor on the same graph.
#include "vdla/compiler/compile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/executor.h"

namespace vdla {
namespace {

using rt::DType;
using rt::Tensor;

Tensor pseudoRandom(const rt::TensorType& type, uint32_t seed) {
  Tensor t(type.dtype, type.shape);
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = static_cast<float>(s >> 8) / float(1 << 24) * 2.0f - 1.0f;
  }
  return t;
}

void expectBitIdentical(const std::vector<Tensor>& got, const std::vector<Tensor>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].type(), want[i].type()) << what << " output " << i;
    ASSERT_EQ(std::memcmp(got[i].raw(), want[i].raw(), got[i].byteSize()), 0) << what << " output " << i;
  }
}

// y = Relu(x + c) * x, z = Clip(y, <no min>, 2)
std::unique_ptr<ir::Graph> handBuilt() {
  auto g = std::make_unique<ir::Graph>();
  g->name = "hand";
  ir::Value* x = g->addInput("x", rt::TensorType{DType::F32, {2, 4}});
  ir::Value* c = g->addConstant("c", Tensor::fromVector<float>({4}, {0.5f, -1.0f, 2.0f, 0.0f}));
  g->addConstant("unused", Tensor::fromVector<float>({2}, {1, 2}));
  ir::Value* hi = g->addConstant("hi", Tensor::scalar<float>(2.0f));
  ir::Node* add = g->addNode("Add", {x, c}, 1, {}, "add");
  ir::Node* relu = g->addNode("Relu", {add->output()}, 1, {}, "relu");
  ir::Node* mul = g->addNode("Mul", {relu->output(), x}, 1, {}, "mul");
  ir::Node* clip = g->addNode("Clip", {mul->output(), nullptr, hi}, 1, {}, "clip");
  g->addOutput(clip->output());
  g->addOutput(add->output());
  return g;
}

// Types every value (hand-built graphs start untyped).
void typeIt(ir::Graph& g) { passes::inferShapes(g); }

TEST(Lowering, OneStepPerNodeWithReferenceKernels) {
  auto g = handBuilt();
  typeIt(*g);
  rt::Artifact a = lowerToArtifact(*g, "ref", "tiny", 42);
  EXPECT_EQ(a.target, "ref");
  EXPECT_EQ(a.model_name, "hand");
  EXPECT_EQ(a.hw_config_name, "tiny");
  EXPECT_EQ(a.hw_config_hash, 42u);
  ASSERT_EQ(a.steps.size(), 4u);
  EXPECT_EQ(a.steps[0].kernel, "ref.Add");
  EXPECT_EQ(a.steps[0].name, "add");
  EXPECT_EQ(a.steps[3].kernel, "ref.Clip");
  ASSERT_EQ(a.steps[3].inputs.size(), 3u);
  EXPECT_EQ(a.steps[3].inputs[1], -1);  // the missing optional min
  // Graph inputs first; the unused constant is not in the plan.
  EXPECT_EQ(a.tensors[a.inputs[0]].name, "x");
  for (const auto& t : a.tensors) EXPECT_NE(t.name, "unused");
  ASSERT_EQ(a.outputs.size(), 2u);
  EXPECT_EQ(a.tensors[a.outputs[1]].name, a.tensors[a.steps[0].outputs[0]].name);
}

TEST(Lowering, AttributesAreCarriedUnchanged) {
  auto g = std::make_unique<ir::Graph>();
  g->name = "attrs";
  ir::Value* x = g->addInput("x", rt::TensorType{DType::F32, {1, 1, 4, 4}});
  rt::AttributeMap attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{2, 2});
  attrs.set("strides", std::vector<int64_t>{2, 2});
  ir::Node* pool = g->addNode("MaxPool", {x}, 1, attrs, "pool");
  g->addOutput(pool->output());
  typeIt(*g);
  rt::Artifact a = lowerToArtifact(*g, "ref", "pynq", 1);
  ASSERT_EQ(a.steps.size(), 1u);
  EXPECT_EQ(a.steps[0].attrs.getInts("kernel_shape"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a.steps[0].attrs.getInts("strides"), (std::vector<int64_t>{2, 2}));
}

TEST(Compile, HandBuiltGraphMatchesTheReferenceExecutorBitForBit) {
  auto g = handBuilt();
  typeIt(*g);
  CompileOptions options;
  options.hw_config = "tiny";
  rt::Artifact a = compileGraph(*g, options);
  EXPECT_EQ(a.hw_config_hash, hw::loadConfig("tiny").hash);
  rt::Artifact loaded = rt::deserializeArtifact(rt::serializeArtifact(a), "hand.vdla");
  rt::Executor ex(loaded);
  for (uint32_t seed = 0; seed < 5; ++seed) {
    Tensor x = pseudoRandom(g->inputs()[0]->type(), seed);
    expectBitIdentical(ex.run({x}), runReference(*g, {x}), "hand seed " + std::to_string(seed));
  }
  // And equal to the unoptimised graph's results (these rewrites are exact).
  auto original = handBuilt();
  typeIt(*original);
  Tensor x = pseudoRandom(original->inputs()[0]->type(), 9);
  expectBitIdentical(ex.run({x}), runReference(*original, {x}), "hand vs unoptimised");
}

TEST(Compile, TargetsAndErrors) {
  EXPECT_EQ(compileTargets(), (std::vector<std::string>{"ref", "vdla", "llvm", "cuda"}));
  EXPECT_TRUE(isTargetAvailable("ref"));
  EXPECT_TRUE(isTargetAvailable("vdla"));
  auto g = handBuilt();
  typeIt(*g);
  CompileOptions options;
  // Which optional targets this build has decides the list of available ones.
  std::string available;
  for (const std::string& t : compileTargets())
    if (isTargetAvailable(t)) available += (available.empty() ? "" : ", ") + t;
  for (const char* t : {"llvm", "cuda"}) {
    if (isTargetAvailable(t)) continue;
    options.target = t;
    try {
      compileGraph(*g, options);
      ADD_FAILURE() << t;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("target '") + t + "' is not available in this build: " +
                                           findTarget(t)->unavailable_reason + " (available: " + available + ")");
    }
  }
  options.target = "tpu";
  try {
    compileGraph(*g, options);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "unknown target 'tpu' (known: ref, vdla, llvm, cuda)");
  }
  options.target = "ref";
  options.hw_config = "no-such-config";
  EXPECT_THROW(compileGraph(*g, options), std::exception);
}

TEST(Compile, SameGraphGivesTheSameBytes) {
  auto a = zoo::buildModel("cnn");
  auto b = zoo::buildModel("cnn");
  EXPECT_EQ(rt::serializeArtifact(compileGraph(*a, {})), rt::serializeArtifact(compileGraph(*b, {})));
}

struct ZooCase {
  const char* name;
  int64_t batch;
  int64_t image_size;
};

class CompileZoo : public ::testing::TestWithParam<ZooCase> {};

TEST_P(CompileZoo, ArtifactMatchesTheReferenceExecutorBitForBit) {
  const ZooCase& c = GetParam();
  zoo::ZooOptions zo;
  zo.batch = c.batch;
  zo.image_size = c.image_size;
  zo.seed = 7;
  auto g = zoo::buildModel(c.name, zo);
  auto original = zoo::buildModel(c.name, zo);
  rt::Artifact a = compileGraph(*g, {});
  rt::Executor ex(rt::deserializeArtifact(rt::serializeArtifact(a), c.name));
  Tensor x = pseudoRandom(g->inputs()[0]->type(), 3);
  std::vector<Tensor> got = ex.run({x});
  expectBitIdentical(got, runReference(*g, {x}), c.name);
  // The optimised plan stays close to the unoptimised graph (batch-norm
  // folding changes rounding only).
  std::vector<Tensor> want = runReference(*original, {x});
  ASSERT_EQ(got[0].type(), want[0].type());
  double max_abs = 0, max_ref = 0;
  for (int64_t i = 0; i < got[0].numElements(); ++i) {
    max_abs = std::max(max_abs, std::abs(double(got[0].data<float>()[i]) - want[0].data<float>()[i]));
    max_ref = std::max(max_ref, std::abs(double(want[0].data<float>()[i])));
  }
  EXPECT_LE(max_abs, 1e-4 * std::max(1.0, max_ref)) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Zoo, CompileZoo,
                         ::testing::Values(ZooCase{"cnn", 1, 32}, ZooCase{"cnn", 3, 32}, ZooCase{"resnet18", 2, 64},
                                           ZooCase{"mobilenetv2", 1, 64}, ZooCase{"resnet50", 1, 64}),
                         [](const auto& info) {
                           return std::string(info.param.name) + "_b" + std::to_string(info.param.batch) + "_s" +
                                  std::to_string(info.param.image_size);
                         });

}  // namespace
}  // namespace vdla
