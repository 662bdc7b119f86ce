// Builds one-node graphs and runs shape inference on them.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/passes/shape_inference.h"

namespace vdla::ir::testing {

using Ints = std::vector<int64_t>;

inline TensorType tt(DType dtype, Shape shape) { return TensorType{dtype, std::move(shape), rt::Layout::RowMajor}; }
inline TensorType f32(Shape shape) { return tt(DType::F32, std::move(shape)); }

inline AttributeMap makeAttrs(std::initializer_list<std::pair<const char*, rt::Attribute>> list) {
  AttributeMap m;
  for (const auto& [k, v] : list) m.set(k, v);
  return m;
}

// An input of a one-node graph: a typed graph input, a constant or absent.
struct In {
  enum Kind { Input, Constant, Missing } kind = Missing;
  TensorType type;
  Tensor value;
  In() = default;
  In(TensorType t) : kind(Input), type(std::move(t)) {}  // NOLINT: implicit on purpose
  static In constant(Tensor v) {
    In in;
    in.kind = Constant;
    in.value = std::move(v);
    return in;
  }
  static In ints(Ints v) { return constant(Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v)); }
};

// Runs shape inference on a graph with one node `op` and returns its output
// types; throws what inferShapes throws.
inline std::vector<TensorType> infer(const std::string& op, const std::vector<In>& inputs, AttributeMap attrs = {},
                                     size_t num_outputs = 1, const std::string& domain = "") {
  Graph g;
  std::vector<Value*> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const In& in = inputs[i];
    const std::string name = "in" + std::to_string(i);
    if (in.kind == In::Input)
      values.push_back(g.addInput(name, in.type));
    else if (in.kind == In::Constant)
      values.push_back(g.addConstant(name, in.value));
    else
      values.push_back(nullptr);
  }
  Node* node = g.addNode(op, values, num_outputs, std::move(attrs), "n0", domain);
  for (Value* out : node->outputs()) g.addOutput(out);
  passes::inferShapes(g);
  std::vector<TensorType> types;
  for (Value* out : node->outputs()) types.push_back(out->type());
  return types;
}

inline TensorType infer1(const std::string& op, const std::vector<In>& inputs, AttributeMap attrs = {},
                         const std::string& domain = "") {
  return infer(op, inputs, std::move(attrs), 1, domain)[0];
}

// The message shape inference gives, or "" when it succeeds.
inline std::string inferError(const std::string& op, const std::vector<In>& inputs, AttributeMap attrs = {},
                              size_t num_outputs = 1, const std::string& domain = "") {
  try {
    infer(op, inputs, std::move(attrs), num_outputs, domain);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_INFER_ERROR(call, substring)                                            \
  do {                                                                                 \
    const std::string message_ = (call);                                               \
    EXPECT_NE(message_.find(substring), std::string::npos) << "message: " << message_; \
  } while (0)

}  // namespace vdla::ir::testing
