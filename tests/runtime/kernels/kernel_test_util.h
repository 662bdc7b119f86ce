// Calls a reference kernel directly, as an executor would: outputs allocated
// by the caller with the given types, a missing optional input as an empty Tensor.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "vdla/runtime/kernel_registry.h"
#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::rt::testing {

inline std::vector<Tensor> runKernel(const std::string& op, const std::vector<Tensor>& inputs,
                                     const std::vector<TensorType>& outputs, const AttributeMap& attrs = {}) {
  KernelRegistry& registry = KernelRegistry::global();
  registerReferenceKernels(registry);
  KernelArgs args;
  args.attrs = &attrs;
  for (const Tensor& t : inputs) args.inputs.push_back(t.empty() ? nullptr : &t);
  std::vector<Tensor> results;
  for (const TensorType& t : outputs) results.emplace_back(t);
  for (Tensor& t : results) args.outputs.push_back(&t);
  registry.get(referenceKernelName(op))(args);
  return results;
}

inline Tensor run1(const std::string& op, const std::vector<Tensor>& inputs, DType dtype, const Shape& shape,
                   const AttributeMap& attrs = {}) {
  return runKernel(op, inputs, {TensorType{dtype, shape, Layout::RowMajor}}, attrs)[0];
}

inline Tensor randomF32(const Shape& shape, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  Tensor t(DType::F32, shape);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

template <typename T>
Tensor randomInt(const Shape& shape, std::mt19937& rng, int lo, int hi) {
  Tensor t(dtypeOf<T>(), shape);
  std::uniform_int_distribution<int> dist(lo, hi);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<T>()[i] = static_cast<T>(dist(rng));
  return t;
}

inline void expectNear(const Tensor& got, const Tensor& want, double tolerance = 1e-4) {
  ASSERT_EQ(got.type(), want.type());
  for (int64_t i = 0; i < got.numElements(); ++i) {
    const double g = got.getAsDouble(i), w = want.getAsDouble(i);
    ASSERT_LE(std::fabs(g - w), tolerance * std::max(1.0, std::fabs(w))) << "element " << i << ": " << g << " vs " << w;
  }
}

inline AttributeMap makeAttrs(std::initializer_list<std::pair<const char*, Attribute>> list) {
  AttributeMap m;
  for (const auto& [k, v] : list) m.set(k, v);
  return m;
}

using Ints = std::vector<int64_t>;

}  // namespace vdla::rt::testing
