#include "shape_helpers.h"

#include <algorithm>

namespace vdla::ir {

const TensorType& inputType(const Node& node, size_t i) {
  const Value* v = node.input(i);
  if (!v) throw std::invalid_argument("input " + std::to_string(i) + " is missing");
  if (!v->hasType()) throw std::invalid_argument("input " + std::to_string(i) + " '" + v->name() + "' has no type");
  return v->type();
}

Shape broadcastShapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw std::invalid_argument("shapes " + rt::shapeToString(a) + " and " + rt::shapeToString(b) +
                                  " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

void setOutputType(Node& node, size_t i, DType dtype, Shape shape) {
  node.output(i)->setType(TensorType{dtype, std::move(shape), rt::Layout::RowMajor});
}

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    throw std::invalid_argument("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace vdla::ir
