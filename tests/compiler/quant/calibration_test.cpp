// Calibration statistics: maxima and percentiles against values computed
// directly from the data, histogram growth, and calibrate() over a graph
// against the tensors the reference executor produces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "vdla/compiler/quant/calibration.h"
#include "vdla/compiler/reference_executor.h"

namespace vdla::quant {
namespace {

// The exact value below which `fraction` of |x| lie (the k-th smallest |x|).
double exactPercentile(std::vector<float> v, double fraction) {
  for (float& x : v) x = std::fabs(x);
  std::sort(v.begin(), v.end());
  const size_t k = static_cast<size_t>(std::ceil(fraction * static_cast<double>(v.size())));
  return v[std::max<size_t>(k, 1) - 1];
}

TEST(TensorStats, MaxAndPercentilesMatchTheData) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::vector<float> all;
  TensorStats s;
  // Several batches, the later ones wider, so the histogram has to grow.
  for (float spread : {0.5f, 1.0f, 4.0f}) {
    std::vector<float> batch(5000);
    for (float& v : batch) v = normal(rng) * spread;
    s.add(batch.data(), static_cast<int64_t>(batch.size()));
    all.insert(all.end(), batch.begin(), batch.end());
  }
  double max_abs = 0;
  for (float v : all) max_abs = std::max(max_abs, static_cast<double>(std::fabs(v)));
  EXPECT_EQ(s.maxAbs(), max_abs);
  EXPECT_EQ(s.count(), all.size());
  const double resolution = 2 * max_abs / TensorStats::kBins;  // range < 2 * max
  for (double f : {0.5, 0.9, 0.99, 0.999}) {
    const double want = exactPercentile(all, f);
    EXPECT_GE(s.percentile(f), want - 1e-9) << f;
    EXPECT_LE(s.percentile(f), want + resolution) << f;
  }
  EXPECT_EQ(s.percentile(1.0), max_abs);
  EXPECT_THROW(s.percentile(0.0), std::invalid_argument);
}

TEST(TensorStats, ZerosAndOutliers) {
  TensorStats s;
  std::vector<float> zeros(100, 0.0f);
  s.add(zeros.data(), 100);
  EXPECT_EQ(s.maxAbs(), 0.0);
  EXPECT_EQ(s.percentile(0.5), 0.0);
  // 1000 values in [0, 1) and one outlier at 1000: the 99.9th percentile ignores it.
  std::vector<float> v;
  for (int i = 0; i < 1000; ++i) v.push_back(static_cast<float>(i) / 1000.0f);
  v.push_back(-1000.0f);
  s.add(v.data(), static_cast<int64_t>(v.size()));
  EXPECT_EQ(s.maxAbs(), 1000.0);
  // 1101 values: 100 zeros, then 0.000..0.999; 99.9% of them is 1100 values, all below 1
  // (up to the histogram's resolution, 1024 / 2048).
  EXPECT_LE(s.percentile(0.999), 1.0 + 0.5);
  EXPECT_EQ(s.percentile(1.0), 1000.0);
}

TEST(Calibrate, RecordsEveryFloatValueOfTheGraph) {
  ir::Graph g;
  g.name = "tiny";
  ir::Value* x = g.addInput("x", {rt::DType::F32, {1, 6}, rt::Layout::RowMajor});
  ir::Value* c = g.addConstant("c", rt::Tensor::fromVector<float>({6}, {1, -2, 3, -4, 5, -6}));
  ir::Node* mul = g.addNode("Mul", {x, c}, 1, {}, "mul", "", {"scaled"});
  ir::Node* relu = g.addNode("Relu", {mul->output(0)}, 1, {}, "relu", "", {"y"});
  g.addOutput(relu->output(0));
  mul->output(0)->setType({rt::DType::F32, {1, 6}, rt::Layout::RowMajor});
  relu->output(0)->setType({rt::DType::F32, {1, 6}, rt::Layout::RowMajor});

  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<std::vector<rt::Tensor>> samples;
  double want_x = 0, want_scaled = 0, want_y = 0;
  for (int i = 0; i < 5; ++i) {
    rt::Tensor t(rt::DType::F32, {1, 6});
    for (int j = 0; j < 6; ++j) t.data<float>()[j] = d(rng);
    samples.push_back({t});
    ReferenceRunOptions o;
    o.on_node = [&](const ir::Node& n, const std::vector<rt::Tensor>& outs) {
      for (int j = 0; j < 6; ++j) {
        const double v = std::fabs(outs[0].data<float>()[j]);
        double& slot = n.name() == "mul" ? want_scaled : want_y;
        slot = std::max(slot, v);
      }
    };
    runReference(g, {t}, o);
    for (int j = 0; j < 6; ++j) want_x = std::max(want_x, static_cast<double>(std::fabs(t.data<float>()[j])));
  }
  std::vector<std::pair<size_t, size_t>> progress;
  CalibrationOptions options;
  options.progress = [&](size_t done, size_t total) { progress.emplace_back(done, total); };
  const CalibrationTable table = calibrate(g, samples, options);
  EXPECT_EQ(table.samples, 5u);
  ASSERT_EQ(table.all().size(), 3u);  // x, scaled, y
  EXPECT_EQ(table.find("x")->maxAbs(), want_x);
  EXPECT_EQ(table.find("scaled")->maxAbs(), want_scaled);
  EXPECT_EQ(table.find("y")->maxAbs(), want_y);
  EXPECT_EQ(table.find("x")->count(), 30u);
  EXPECT_EQ(table.find("c"), nullptr);  // constants are not calibrated
  EXPECT_EQ(progress, (std::vector<std::pair<size_t, size_t>>{{1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}}));
}

}  // namespace
}  // namespace vdla::quant
