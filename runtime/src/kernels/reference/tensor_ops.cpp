// Data movement for any element type: Identity, Dropout (inference), Flatten,
// Reshape, Squeeze, Unsqueeze (all a copy into the output the compiler shaped),
// Concat, Pad (constant/reflect/edge, negative pads crop), Transpose, Shape and
// Gather. Elements are moved as unsigned integers of the element's size.
#include <cstring>

#include "common.h"
#include "vdla/runtime/range_length.h"
#include "register.h"

namespace vdla::rt::ref {

namespace {

// Calls f<U>() with U the unsigned type of the element size of `dtype`.
template <typename F>
void withElementType(DType dtype, F f) {
  switch (dtypeSize(dtype)) {
    case 1: f(uint8_t{}); break;
    case 4: f(uint32_t{}); break;
    case 8: f(uint64_t{}); break;
    default: throw KernelError(std::string("unsupported element type ") + dtypeName(dtype));
  }
}

void copyInput0(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  require(x.dtype() == y.dtype(), "output type differs from the input's");
  require(x.numElements() == y.numElements(), "output " + shapeToString(y.shape()) + " does not hold the " +
                                                  std::to_string(x.numElements()) + " input elements");
  if (x.byteSize()) std::memcpy(y.raw(), x.raw(), x.byteSize());
}

void dropout(const KernelArgs& a) {
  copyInput0(a);
  if (a.outputs.size() > 1 && a.outputs[1]) {
    Tensor& mask = a.output(1);
    requireDType(mask, DType::Bool, "output mask");
    std::fill_n(mask.data<bool>(), mask.numElements(), true);
  }
}

void concat(const KernelArgs& a) {
  Tensor& y = a.output(0);
  const int64_t rank = y.rank();
  const int64_t axis = normalizeAxis(a.attributes().getInt("axis"), rank);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis) outer *= y.dim(d);
    if (d > axis) inner *= y.dim(d);
  }
  const size_t esize = dtypeSize(y.dtype());
  const size_t out_row = static_cast<size_t>(y.dim(axis) * inner) * esize;
  size_t offset = 0;
  int64_t total = 0;
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    const Tensor& x = a.input(i);
    require(x.dtype() == y.dtype() && x.rank() == rank, "input " + std::to_string(i) + " does not match the output");
    for (int64_t d = 0; d < rank; ++d)
      require(d == axis || x.dim(d) == y.dim(d), "input " + std::to_string(i) + " " + shapeToString(x.shape()) +
                                                     " does not match the output " + shapeToString(y.shape()));
    const size_t row = static_cast<size_t>(x.dim(axis) * inner) * esize;
    const auto* src = static_cast<const uint8_t*>(x.raw());
    auto* dst = static_cast<uint8_t*>(y.raw());
    for (int64_t o = 0; o < outer; ++o)
      if (row) std::memcpy(dst + o * out_row + offset, src + o * row, row);
    offset += row;
    total += x.dim(axis);
  }
  require(total == y.dim(axis), "inputs do not fill the output along the axis");
}

void transpose(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  const int64_t rank = x.rank();
  std::vector<int64_t> perm;
  for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  perm = a.attributes().getInts("perm", perm);
  require(static_cast<int64_t>(perm.size()) == rank, "attribute 'perm' does not match the input's rank");
  Shape out(static_cast<size_t>(rank));
  const std::vector<int64_t> in_strides = rowMajorStrides(x.shape());
  std::vector<int64_t> strides(static_cast<size_t>(rank));  // input stride of each output dimension
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t p = normalizeAxis(perm[d], rank);
    out[d] = x.dim(p);
    strides[d] = in_strides[p];
  }
  requireShape(y, out);
  requireDType(y, x.dtype(), "output");
  withElementType(x.dtype(), [&](auto tag) {
    using U = decltype(tag);
    const U* src = static_cast<const U*>(x.raw());
    U* dst = static_cast<U*>(y.raw());
    std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
    int64_t in = 0;
    for (int64_t i = 0, n = y.numElements(); i < n; ++i) {
      dst[i] = src[in];
      for (int64_t d = rank - 1; d >= 0; --d) {
        in += strides[d];
        if (++coord[d] < out[d]) break;
        in -= strides[d] * out[d];
        coord[d] = 0;
      }
    }
  });
}

// Index of the input element an output coordinate reads in the given mode, or
// -1 for the constant.
int64_t padSource(int64_t i, int64_t n, const std::string& mode) {
  if (i >= 0 && i < n) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return i < 0 ? 0 : n - 1;
  // reflect (numpy): mirror without repeating the edge, as often as needed.
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  int64_t m = ((i % period) + period) % period;
  return m < n ? m : period - m;
}

void pad(const KernelArgs& a) {
  const AttributeMap& attrs = a.attributes();
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  requireDType(y, x.dtype(), "output");
  const int64_t rank = x.rank();
  const std::string mode = attrs.getString("mode", "constant");
  require(mode == "constant" || mode == "reflect" || mode == "edge",
          "attribute 'mode' has unsupported value \"" + mode + "\"");
  std::vector<int64_t> pads = attrs.has("pads") ? attrs.getInts("pads") : readInts(a.input(1));
  std::vector<int64_t> axes;
  if (a.hasInput(3)) {
    for (int64_t axis : readInts(a.input(3))) axes.push_back(normalizeAxis(axis, rank));
  } else {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  require(pads.size() == 2 * axes.size(),
          "'pads' has " + std::to_string(pads.size()) + " values, expected " + std::to_string(2 * axes.size()));
  std::vector<int64_t> begin(static_cast<size_t>(rank), 0);
  Shape out = x.shape();
  for (size_t i = 0; i < axes.size(); ++i) {
    begin[axes[i]] = pads[i];
    out[axes[i]] += pads[i] + pads[i + axes.size()];
  }
  requireShape(y, out);
  // The constant as one element of the tensor's type.
  Tensor value(x.dtype(), {});
  if (a.hasInput(2)) {
    require(a.input(2).dtype() == x.dtype() && a.input(2).numElements() == 1,
            "constant_value must be a scalar of the input's type");
    std::memcpy(value.raw(), a.input(2).raw(), dtypeSize(x.dtype()));
  } else {
    const double v = attrs.getFloat("value", 0.0);
    switch (x.dtype()) {
      case DType::F32: value.data<float>()[0] = static_cast<float>(v); break;
      case DType::U8: value.data<uint8_t>()[0] = static_cast<uint8_t>(v); break;
      case DType::I8: value.data<int8_t>()[0] = static_cast<int8_t>(v); break;
      case DType::I32: value.data<int32_t>()[0] = static_cast<int32_t>(v); break;
      case DType::I64: value.data<int64_t>()[0] = static_cast<int64_t>(v); break;
      case DType::Bool: value.data<bool>()[0] = v != 0; break;
    }
  }
  if (mode != "constant")
    for (int64_t d = 0; d < rank; ++d)
      require(x.dim(d) > 0 || out[d] == 0, "mode '" + mode + "' cannot pad an empty dimension");
  const std::vector<int64_t> in_strides = rowMajorStrides(x.shape());
  withElementType(x.dtype(), [&](auto tag) {
    using U = decltype(tag);
    const U* src = static_cast<const U*>(x.raw());
    U* dst = static_cast<U*>(y.raw());
    const U fill = *static_cast<const U*>(value.raw());
    std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
    for (int64_t i = 0, n = y.numElements(); i < n; ++i) {
      int64_t offset = 0;
      bool inside = true;
      for (int64_t d = 0; d < rank && inside; ++d) {
        const int64_t s = padSource(coord[d] - begin[d], x.dim(d), mode);
        if (s < 0)
          inside = false;
        else
          offset += s * in_strides[d];
      }
      dst[i] = inside ? src[offset] : fill;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++coord[d] < out[d]) break;
        coord[d] = 0;
      }
    }
  });
}

void shape(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  requireDType(y, DType::I64, "output");
  const int64_t rank = x.rank();
  auto clampIndex = [rank](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
  const int64_t start = clampIndex(a.attributes().getInt("start", 0));
  const int64_t end = std::max(start, clampIndex(a.attributes().getInt("end", rank)));
  requireShape(y, {end - start});
  for (int64_t d = start; d < end; ++d) y.data<int64_t>()[d - start] = x.dim(d);
}

void gather(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  const Tensor& idx = a.input(1);
  Tensor& y = a.output(0);
  requireDType(y, x.dtype(), "output");
  require(x.rank() >= 1, "data must have rank >= 1");
  const int64_t axis = normalizeAxis(a.attributes().getInt("axis", 0), x.rank());
  Shape out(x.shape().begin(), x.shape().begin() + axis);
  out.insert(out.end(), idx.shape().begin(), idx.shape().end());
  out.insert(out.end(), x.shape().begin() + axis + 1, x.shape().end());
  requireShape(y, out);
  const std::vector<int64_t> indices = readInts(idx);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d < axis) outer *= x.dim(d);
    if (d > axis) inner *= x.dim(d);
  }
  const int64_t size = x.dim(axis);
  const size_t chunk = static_cast<size_t>(inner) * dtypeSize(x.dtype());
  const auto* src = static_cast<const uint8_t*>(x.raw());
  auto* dst = static_cast<uint8_t*>(y.raw());
  for (int64_t o = 0; o < outer; ++o)
    for (size_t j = 0; j < indices.size(); ++j) {
      int64_t i = indices[j];
      require(i >= -size && i < size, "index " + std::to_string(i) + " is out of range for axis " +
                                          std::to_string(axis) + " of size " + std::to_string(size));
      if (i < 0) i += size;
      if (chunk)
        std::memcpy(dst + (o * static_cast<int64_t>(indices.size()) + static_cast<int64_t>(j)) * chunk,
                    src + (o * size + i) * chunk, chunk);
    }
}

// ScatterND: a copy of data with the slice data[i0..ik-1] replaced by the
// matching slice of updates for every index tuple, in order (a repeated tuple:
// the last write wins, as sequential application defines it).
void scatterND(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  const Tensor& idx = a.input(1);
  const Tensor& upd = a.input(2);
  Tensor& y = a.output(0);
  requireDType(y, x.dtype(), "output");
  requireShape(y, x.shape());
  require(upd.dtype() == x.dtype(), "updates must have data's type");
  require(a.attributes().getString("reduction", "none") == "none", "only reduction none is supported");
  const int64_t k = idx.dim(idx.rank() - 1), tuples = idx.numElements() / std::max<int64_t>(k, 1);
  int64_t slice = 1;
  for (int64_t d = k; d < x.rank(); ++d) slice *= x.dim(d);
  require(upd.numElements() == tuples * slice, "updates hold " + std::to_string(upd.numElements()) +
                                                   " elements, the indices address " + std::to_string(tuples * slice));
  const size_t bytes = dtypeSize(x.dtype()), chunk = static_cast<size_t>(slice) * bytes;
  std::memcpy(y.raw(), x.raw(), static_cast<size_t>(x.numElements()) * bytes);
  const std::vector<int64_t> indices = readInts(idx);
  auto* dst = static_cast<uint8_t*>(y.raw());
  const auto* src = static_cast<const uint8_t*>(upd.raw());
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t i = indices[static_cast<size_t>(t * k + d)];
      const int64_t size = x.dim(d);
      require(i >= -size && i < size, "index " + std::to_string(i) + " of tuple " + std::to_string(t) +
                                          " is out of range for axis " + std::to_string(d) + " of size " +
                                          std::to_string(size));
      if (i < 0) i += size;
      offset = offset * size + i;
    }
    if (chunk) std::memcpy(dst + static_cast<size_t>(offset) * chunk, src + static_cast<size_t>(t) * chunk, chunk);
  }
}

// ConstantOfShape: the output (already of the requested shape) filled with
// the element of attribute `value`, or f32 zeros without it.
void constantOfShape(const KernelArgs& a) {
  Tensor& y = a.output(0);
  if (!a.attributes().has("value")) {
    requireDType(y, DType::F32, "output");
    std::fill_n(y.data<float>(), y.numElements(), 0.0f);
    return;
  }
  const Tensor& v = a.attributes().getTensor("value");
  require(v.numElements() == 1, "attribute 'value' must hold one element");
  requireDType(y, v.dtype(), "output");
  const size_t size = dtypeSize(v.dtype());
  auto* out = static_cast<uint8_t*>(y.raw());
  for (int64_t i = 0; i < y.numElements(); ++i) std::memcpy(out + size_t(i) * size, v.raw(), size);
}

// Range: start + i * delta, in the operands' type (integers exactly).
void range(const KernelArgs& a) {
  const Tensor &start = a.input(0), &limit = a.input(1), &delta = a.input(2);
  Tensor& y = a.output(0);
  require(start.dtype() == limit.dtype() && start.dtype() == delta.dtype() && y.dtype() == start.dtype(),
          "start, limit, delta and the output must share one type");
  const int64_t n = rangeLength(start, limit, delta);
  require(y.numElements() == n,
          "output holds " + std::to_string(y.numElements()) + " elements, the range " + std::to_string(n));
  switch (y.dtype()) {
    case DType::F32: {
      const float s = start.data<float>()[0], d = delta.data<float>()[0];
      for (int64_t i = 0; i < n; ++i) y.data<float>()[i] = s + static_cast<float>(i) * d;
      return;
    }
    case DType::I32:
      for (int64_t i = 0; i < n; ++i)
        y.data<int32_t>()[i] = static_cast<int32_t>(start.getAsInt(0) + i * delta.getAsInt(0));
      return;
    case DType::I64:
      for (int64_t i = 0; i < n; ++i) y.data<int64_t>()[i] = start.getAsInt(0) + i * delta.getAsInt(0);
      return;
    default: throw KernelError(std::string("Range: unsupported element type ") + dtypeName(y.dtype()));
  }
}

}  // namespace

void registerTensorOps(KernelRegistry& r) {
  for (const char* op : {"Identity", "Flatten", "Reshape", "Squeeze", "Unsqueeze"})
    r.add(std::string("ref.") + op, copyInput0);
  r.add("ref.Dropout", dropout);
  r.add("ref.Concat", concat);
  r.add("ref.Transpose", transpose);
  r.add("ref.Pad", pad);
  r.add("ref.Shape", shape);
  r.add("ref.Gather", gather);
  r.add("ref.ConstantOfShape", constantOfShape);
  r.add("ref.Range", range);
  r.add("ref.ScatterND", scatterND);
}

}  // namespace vdla::rt::ref
