// Shared by the quantisation tests: agreement measures between an fp32 graph
// and its int8 form, value by value.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "vdla/compiler/quant/quantize.h"
#include "vdla/compiler/reference_executor.h"

namespace vdla::quant::testing {

// cos(a, b) over all elements, as doubles; 1 for two all-zero tensors.
inline double cosineSimilarity(const std::vector<double>& a, const std::vector<double>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  if (aa == 0 && bb == 0) return 1;
  return ab / std::sqrt(aa * bb);
}

inline std::vector<double> toDoubles(const rt::Tensor& t, double scale = 1.0) {
  std::vector<double> v(static_cast<size_t>(t.numElements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.getAsDouble(static_cast<int64_t>(i)) * scale;
  return v;
}

// Every node output of one run, by value name.
inline std::map<std::string, rt::Tensor> runCapturing(const ir::Graph& g, const std::vector<rt::Tensor>& inputs,
                                                      std::vector<rt::Tensor>* outputs = nullptr) {
  std::map<std::string, rt::Tensor> values;
  for (size_t i = 0; i < inputs.size(); ++i) values[g.inputs()[i]->name()] = inputs[i];
  ReferenceRunOptions o;
  o.on_node = [&](const ir::Node& n, const std::vector<rt::Tensor>& outs) {
    for (size_t i = 0; i < outs.size(); ++i) values[n.output(i)->name()] = outs[i];
  };
  std::vector<rt::Tensor> out = runReference(g, inputs, o);
  if (outputs) *outputs = out;
  return values;
}

// For each value of the report: cosine similarity between the fp32 value and
// its dequantised int8 counterpart.
struct ValueAgreement {
  std::string name;
  double cosine = 1;
};
inline std::vector<ValueAgreement> perValueAgreement(const QuantizeReport& report,
                                                     const std::map<std::string, rt::Tensor>& fp32,
                                                     const std::map<std::string, rt::Tensor>& int8) {
  std::vector<ValueAgreement> out;
  for (const auto& v : report.values) {
    auto f = fp32.find(v.float_value);
    auto q = int8.find(v.int8_value);
    if (f == fp32.end() || q == int8.end()) continue;
    out.push_back({v.float_value, cosineSimilarity(toDoubles(f->second), toDoubles(q->second, v.scale))});
  }
  return out;
}

}  // namespace vdla::quant::testing
