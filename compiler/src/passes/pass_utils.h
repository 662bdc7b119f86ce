// Helpers shared by the graph passes (private to compiler/src/passes).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes::detail {

// Runs the operator's type inference on one node; throws naming the node.
void inferNodeTypes(ir::Node& node);

// Readers of `from` (and graph outputs) read `to` instead. When `from` is a
// graph output, `to` takes over its name so the graph's interface keeps its
// names (the two values swap names).
void replaceValue(ir::Graph& graph, ir::Value* from, ir::Value* to);

// True when v is read by exactly one node slot and is not a graph output.
bool hasSingleUse(const ir::Graph& graph, const ir::Value* v);

// The constant tensor of v, or nullptr when v is absent or not a constant.
const rt::Tensor* constantOf(const ir::Value* v);

// Every element of a numeric tensor as double.
std::vector<double> toDoubles(const rt::Tensor& t);

// The value of a one-element constant, when v is one.
std::optional<double> scalarConstant(const ir::Value* v);

// A rank-1 f32 tensor of the given values.
rt::Tensor floatTensor(const std::vector<double>& values, rt::Shape shape);

}  // namespace vdla::passes::detail
