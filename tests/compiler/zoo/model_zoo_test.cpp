#include "vdla/compiler/zoo/model_zoo.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <set>

#include "passes/pass_test_util.h"
#include "vdla/compiler/ir/verifier.h"

namespace vdla {
namespace {

using testing::countOp;

TEST(ModelZoo, Names) {
  EXPECT_EQ(zoo::modelNames(), (std::vector<std::string>{"resnet18", "resnet34", "resnet50", "mobilenetv2", "cnn"}));
  for (const auto& name : zoo::modelNames()) EXPECT_TRUE(zoo::isZooModel(name));
  EXPECT_FALSE(zoo::isZooModel("resnet101"));
  EXPECT_FALSE(zoo::isZooModel(""));
}

TEST(ModelZoo, UnknownNameListsTheModels) {
  try {
    zoo::buildModel("vgg16");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("vgg16"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("resnet18, resnet34, resnet50, mobilenetv2, cnn"), std::string::npos)
        << e.what();
  }
}

TEST(ModelZoo, RejectsBadOptions) {
  zoo::ZooOptions o;
  o.image_size = 16;
  EXPECT_THROW(zoo::buildModel("resnet18", o), std::invalid_argument);
  o = {};
  o.batch = 0;
  EXPECT_THROW(zoo::buildModel("cnn", o), std::invalid_argument);
  o = {};
  o.num_classes = 0;
  EXPECT_THROW(zoo::buildModel("mobilenetv2", o), std::invalid_argument);
}

struct CountCase {
  const char* name;
  int64_t parameters;  // sum(p.numel() for p in torchvision.models.<name>().parameters())
};

class ParameterCount : public ::testing::TestWithParam<CountCase> {};

TEST_P(ParameterCount, MatchesTorchvision) {
  auto g = zoo::buildModel(GetParam().name);
  EXPECT_EQ(zoo::parameterCount(*g), GetParam().parameters);
}

INSTANTIATE_TEST_SUITE_P(Torchvision, ParameterCount,
                         ::testing::Values(CountCase{"resnet18", 11689512}, CountCase{"resnet34", 21797672},
                                           CountCase{"resnet50", 25557032}, CountCase{"mobilenetv2", 3504872}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ModelZoo, InterfaceAndTypes) {
  zoo::ZooOptions o;
  o.batch = 2;
  o.image_size = 96;
  o.num_classes = 10;
  for (const auto& name : zoo::modelNames()) {
    SCOPED_TRACE(name);
    auto g = zoo::buildModel(name, o);
    EXPECT_EQ(g->name, name);
    ASSERT_EQ(g->inputs().size(), 1u);
    ASSERT_EQ(g->outputs().size(), 1u);
    EXPECT_EQ(g->inputs()[0]->name(), "input");
    EXPECT_EQ(g->inputs()[0]->type(), (rt::TensorType{rt::DType::F32, {2, 3, 96, 96}}));
    EXPECT_EQ(g->outputs()[0]->name(), "logits");
    EXPECT_EQ(g->outputs()[0]->type(), (rt::TensorType{rt::DType::F32, {2, 10}}));
    EXPECT_NO_THROW(ir::verifyGraphOrThrow(*g));
  }
}

TEST(ModelZoo, UnfusedExportForm) {
  auto g = zoo::buildModel("resnet18");
  EXPECT_EQ(testing::opHistogram(*g), (std::map<std::string, int>{{"Conv", 20},
                                                                  {"BatchNormalization", 20},
                                                                  {"Relu", 17},
                                                                  {"Add", 8},
                                                                  {"MaxPool", 1},
                                                                  {"GlobalAveragePool", 1},
                                                                  {"Flatten", 1},
                                                                  {"Gemm", 1}}));
  for (const ir::Node* n : g->nodes())
    if (n->op() == "Conv") {
      EXPECT_EQ(n->numInputs(), 2u) << n->name();  // bias-free, as torchvision
    }
  auto m = zoo::buildModel("mobilenetv2");
  EXPECT_EQ(countOp(*m, "Conv"), 52);
  EXPECT_EQ(countOp(*m, "BatchNormalization"), 52);
  EXPECT_EQ(countOp(*m, "Clip"), 35);
  EXPECT_EQ(countOp(*m, "Add"), 10);
  EXPECT_EQ(countOp(*m, "Dropout"), 1);
  auto r50 = zoo::buildModel("resnet50");
  EXPECT_EQ(countOp(*r50, "Conv"), 53);
  EXPECT_EQ(countOp(*r50, "Add"), 16);
}

bool sameConstants(const ir::Graph& a, const ir::Graph& b) {
  for (const ir::Value* c : a.constants()) {
    const ir::Value* d = b.findValue(c->name());
    if (!d || !d->isConstant() || d->constant().type() != c->constant().type()) return false;
    if (std::memcmp(c->constant().raw(), d->constant().raw(), c->constant().byteSize()) != 0) return false;
  }
  return a.constants().size() == b.constants().size();
}

TEST(ModelZoo, WeightsAreDeterministicPerSeed) {
  zoo::ZooOptions o;
  o.seed = 7;
  auto a = zoo::buildModel("resnet18", o);
  auto b = zoo::buildModel("resnet18", o);
  EXPECT_TRUE(sameConstants(*a, *b));
  o.seed = 8;
  auto c = zoo::buildModel("resnet18", o);
  EXPECT_FALSE(sameConstants(*a, *c));
  // Every tensor changes with the seed, not just some.
  for (const ir::Value* v : a->constants()) {
    if (v->constant().numElements() < 8) continue;
    const ir::Value* w = c->findValue(v->name());
    ASSERT_NE(w, nullptr);
    EXPECT_NE(std::memcmp(v->constant().raw(), w->constant().raw(), v->constant().byteSize()), 0) << v->name();
  }
  // The image size and batch do not change the weights.
  zoo::ZooOptions small = o;
  small.image_size = 64;
  small.batch = 3;
  EXPECT_TRUE(sameConstants(*c, *zoo::buildModel("resnet18", small)));
}

// Pins the generator and distributions: these values must be the same on every
// platform and compiler (the weights are part of the test data of later stages).
TEST(ModelZoo, WeightsArePortable) {
  auto g = zoo::buildModel("cnn");
  const float* w = g->findValue("stem.conv.weight")->constant().data<float>();
  const float* v = g->findValue("stem.bn.running_var")->constant().data<float>();
  std::vector<uint32_t> bits;
  for (const float* p : {w, w + 1, w + 2, v, v + 1}) {
    uint32_t u;
    std::memcpy(&u, p, 4);
    bits.push_back(u);
  }
  EXPECT_EQ(bits, (std::vector<uint32_t>{3199628936u, 1050632690u, 3201246525u, 1066888441u, 1059187408u}));
}

TEST(ModelZoo, WeightStatisticsAreSane) {
  auto g = zoo::buildModel("resnet18");
  const rt::Tensor& w = g->findValue("layer1.0.conv1.weight")->constant();  // 64x64x3x3, fan_in 576
  double sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < w.numElements(); ++i) {
    sum += w.data<float>()[i];
    sum_sq += double(w.data<float>()[i]) * w.data<float>()[i];
  }
  double mean = sum / w.numElements();
  double stddev = std::sqrt(sum_sq / w.numElements() - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.002);
  EXPECT_NEAR(stddev, std::sqrt(2.0 / 576), 0.002);
  for (float var : g->findValue("layer1.0.bn1.running_var")->constant().toVector<float>()) {
    EXPECT_GE(var, 0.6f);
    EXPECT_LT(var, 1.6f);
  }
}

#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
TEST(ModelZoo, BuildingResNet18IsFast) {
  zoo::buildModel("cnn");  // warm-up: registries and allocator
  auto start = std::chrono::steady_clock::now();
  auto g = zoo::buildModel("resnet18");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("resnet18_build_ms", std::to_string(seconds * 1e3));
  std::printf("building resnet18: %.1f ms\n", seconds * 1e3);
  EXPECT_LT(seconds, 0.3);
}
#endif

TEST(ModelZoo, LogitsAreFiniteVariedAndInputDependent) {
  for (const char* name : {"cnn", "resnet18", "mobilenetv2"}) {
    SCOPED_TRACE(name);
    zoo::ZooOptions o;
    o.batch = 2;
    o.image_size = std::string(name) == "cnn" ? 16 : 64;
    auto g = zoo::buildModel(name, o);
    rt::Tensor input = testing::randomTensor({2, 3, o.image_size, o.image_size}, 3);
    rt::Tensor logits = runReference(*g, {input})[0];
    std::vector<float> v = logits.toVector<float>();
    std::set<float> distinct(v.begin(), v.end());
    for (float x : v) ASSERT_TRUE(std::isfinite(x));
    EXPECT_GT(distinct.size(), v.size() / 2);
    // The two images of the batch give different logits, by a visible margin.
    double diff = 0, scale = 0;
    for (int64_t c = 0; c < 1000; ++c) {
      diff = std::max(diff, double(std::abs(v[c] - v[1000 + c])));
      scale = std::max(scale, double(std::abs(v[c])));
    }
    EXPECT_GT(diff, 1e-3 * scale);
    EXPECT_LT(scale, 1e3);
  }
}

}  // namespace
}  // namespace vdla
