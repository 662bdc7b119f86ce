#pragma once
// An ONNX Einsum equation resolved against its operands' shapes: every letter
// (and every dimension an ellipsis stands for) becomes one label with one
// extent. Shared by the type inference, which needs the output shape, and the
// reference kernel, which loops over the labels.
#include <cstdint>
#include <string>
#include <vector>

#include "vdla/runtime/tensor.h"

namespace vdla::rt {

struct EinsumEquation {
  std::vector<int64_t> extents;            // per label
  std::vector<std::vector<int>> operands;  // per operand, the label of each dimension
  std::vector<int> output;                 // the output's labels, in order
  std::vector<int> summed;                 // labels absent from the output (contracted)
  Shape outputShape() const;
};

// Parses `equation` ("ij,jk->ik", spaces ignored, letters of either case,
// "..." for broadcast dimensions; without "->" the output is the ellipsis
// followed by the letters that occur once, in alphabetical order). Throws
// std::invalid_argument naming what does not fit the shapes.
EinsumEquation resolveEinsum(const std::string& equation, const std::vector<Shape>& shapes);

}  // namespace vdla::rt
