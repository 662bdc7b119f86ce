#include "vdla/compiler/quant/calibration.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "vdla/compiler/reference_executor.h"

namespace vdla::quant {

void TensorStats::growTo(double v) {
  if (range_ == 0) {
    // The first range: the smallest power of two above v, so that later growth
    // keeps bin edges aligned (merging pairs is then exact).
    range_ = std::ldexp(1.0, std::ilogb(v) + 1);
    bins_.assign(kBins, 0);
    return;
  }
  while (v >= range_) {
    for (int i = 0; i < kBins / 2; ++i) bins_[i] = bins_[2 * i] + bins_[2 * i + 1];
    std::fill(bins_.begin() + kBins / 2, bins_.end(), 0);
    range_ *= 2;
  }
}

void TensorStats::add(const float* data, int64_t count) {
  float batch_max = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (!std::isfinite(data[i])) throw std::invalid_argument("calibration saw a non-finite value");
    batch_max = std::max(batch_max, std::fabs(data[i]));
  }
  if (batch_max > 0) growTo(batch_max);
  max_abs_ = std::max(max_abs_, static_cast<double>(batch_max));
  count_ += static_cast<uint64_t>(count);
  if (range_ == 0) return;  // every value so far is 0: nothing to bin
  const double to_bin = kBins / range_;
  for (int64_t i = 0; i < count; ++i) {
    const int b = static_cast<int>(std::fabs(data[i]) * to_bin);
    ++bins_[std::min(b, kBins - 1)];
  }
}

double TensorStats::percentile(double fraction) const {
  if (!(fraction > 0 && fraction <= 1)) throw std::invalid_argument("percentile fraction must be in (0, 1]");
  if (range_ == 0 || count_ == 0) return 0;
  // Zeros seen before the first nonzero value were never binned: they belong to bin 0.
  uint64_t binned = 0;
  for (uint64_t c : bins_) binned += c;
  const uint64_t target = static_cast<uint64_t>(std::ceil(fraction * static_cast<double>(count_)));
  uint64_t seen = count_ - binned;
  for (int i = 0; i < kBins; ++i) {
    seen += bins_[i];
    if (seen >= target) return std::min(max_abs_, (i + 1) * range_ / kBins);
  }
  return max_abs_;
}

void CalibrationTable::record(const std::string& value, const rt::Tensor& tensor) {
  if (tensor.dtype() != rt::DType::F32) return;
  stats_[value].add(tensor.data<float>(), tensor.numElements());
}

const TensorStats* CalibrationTable::find(const std::string& value) const {
  auto it = stats_.find(value);
  return it == stats_.end() ? nullptr : &it->second;
}

CalibrationTable calibrate(const ir::Graph& graph, const std::vector<std::vector<rt::Tensor>>& samples,
                           const CalibrationOptions& options) {
  CalibrationTable table;
  ReferenceRunOptions run;
  run.on_node = [&](const ir::Node& node, const std::vector<rt::Tensor>& outputs) {
    for (size_t i = 0; i < outputs.size(); ++i) table.record(node.output(i)->name(), outputs[i]);
  };
  for (size_t s = 0; s < samples.size(); ++s) {
    const std::vector<rt::Tensor>& inputs = samples[s];
    for (size_t i = 0; i < inputs.size() && i < graph.inputs().size(); ++i)
      table.record(graph.inputs()[i]->name(), inputs[i]);
    runReference(graph, inputs, run);
    ++table.samples;
    if (options.progress) options.progress(s + 1, samples.size());
  }
  return table;
}

}  // namespace vdla::quant
