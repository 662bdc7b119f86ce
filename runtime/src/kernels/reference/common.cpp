#include "common.h"

namespace vdla::rt::ref {

void requireDType(const Tensor& t, DType want, const char* what) {
  if (t.dtype() != want)
    throw KernelError(std::string(what) + " must be " + dtypeName(want) + ", got " + dtypeName(t.dtype()));
}

void requireShape(const Tensor& out, const Shape& expected, const char* what) {
  if (out.shape() != expected)
    throw KernelError(std::string(what) + " was allocated as " + shapeToString(out.shape()) + ", expected " +
                      shapeToString(expected));
}

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    throw KernelError("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> readInts(const Tensor& t) {
  require(t.dtype() != DType::F32 && t.dtype() != DType::Bool,
          std::string("expected an integer tensor, got ") + dtypeName(t.dtype()));
  std::vector<int64_t> out(static_cast<size_t>(t.numElements()));
  for (int64_t i = 0; i < t.numElements(); ++i) out[i] = t.getAsInt(i);
  return out;
}

std::vector<int64_t> broadcastStrides(const Shape& out, const Shape& in) {
  require(in.size() <= out.size(), "cannot broadcast " + shapeToString(in) + " to " + shapeToString(out));
  const std::vector<int64_t> strides = rowMajorStrides(in);
  std::vector<int64_t> result(out.size(), 0);
  const size_t offset = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) {
    require(in[d] == out[d + offset] || in[d] == 1,
            "cannot broadcast " + shapeToString(in) + " to " + shapeToString(out));
    result[d + offset] = in[d] == 1 ? 0 : strides[d];
  }
  return result;
}

void Activation::apply(float* data, int64_t n) const {
  if (kind == None) return;
  const float l = kind == Relu ? 0.0f : lo, h = kind == Relu ? INFINITY : hi;
  for (int64_t i = 0; i < n; ++i) data[i] = std::min(std::max(data[i], l), h);
}

Activation readActivation(const AttributeMap& attrs) {
  Activation a;
  if (!attrs.has("activation")) return a;
  const std::string& name = attrs.getString("activation");
  if (name == "Relu") {
    a.kind = Activation::Relu;
  } else if (name == "Clip") {
    a.kind = Activation::Clip;
    a.lo = static_cast<float>(attrs.getFloat("activation_min", -INFINITY));
    a.hi = static_cast<float>(attrs.getFloat("activation_max", INFINITY));
  } else {
    throw KernelError("attribute 'activation' has unsupported value \"" + name + "\"");
  }
  return a;
}

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

std::vector<int64_t> listAttr(const AttributeMap& attrs, const char* name, size_t rank, int64_t minimum) {
  std::vector<int64_t> v = attrs.getInts(name, std::vector<int64_t>(rank, 1));
  require(v.size() == rank, std::string("attribute '") + name + "' needs " + std::to_string(rank) + " values");
  for (int64_t x : v) require(x >= minimum, std::string("attribute '") + name + "' has a value below 1");
  return v;
}

}  // namespace

Window3 resolveWindow(const AttributeMap& attrs, const Shape& input_spatial, const std::vector<int64_t>& kernel,
                      bool is_pooling) {
  const size_t rank = input_spatial.size();
  require(rank >= 1 && rank <= 3, "only 1 to 3 spatial dimensions are supported, got " + std::to_string(rank));
  require(kernel.size() == rank, "kernel rank does not match the input's spatial rank");
  const std::vector<int64_t> strides = listAttr(attrs, "strides", rank, 1);
  const std::vector<int64_t> dilations = listAttr(attrs, "dilations", rank, 1);
  std::vector<int64_t> pads = attrs.getInts("pads", std::vector<int64_t>(2 * rank, 0));
  require(pads.size() == 2 * rank, "attribute 'pads' needs " + std::to_string(2 * rank) + " values");
  const std::string auto_pad = attrs.getString("auto_pad", "NOTSET");
  require(auto_pad == "NOTSET" || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER" || auto_pad == "VALID",
          "attribute 'auto_pad' has unsupported value \"" + auto_pad + "\"");
  const int64_t ceil_mode = is_pooling ? attrs.getInt("ceil_mode", 0) : 0;

  Window3 w;
  const size_t lead = 3 - rank;  // unit dimensions in front
  for (size_t i = 0; i < 3; ++i) {
    w.in[i] = w.kernel[i] = w.out[i] = w.stride[i] = w.dilation[i] = 1;
    w.pad_begin[i] = w.pad_end[i] = 0;
  }
  for (size_t i = 0; i < rank; ++i) {
    const size_t j = lead + i;
    const int64_t in = input_spatial[i], s = strides[i], k = kernel[i], d = dilations[i];
    require(k >= 1, "kernel sizes must be >= 1");
    const int64_t dk = (k - 1) * d + 1;
    int64_t pb = pads[i], pe = pads[i + rank], out;
    require(pb >= 0 && pe >= 0, "attribute 'pads' must be non-negative");
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = ceilDiv(in, s);
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + dk - in);
      pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else {
      if (auto_pad == "VALID") pb = pe = 0;
      const int64_t span = in + pb + pe - dk;
      require(span >= 0, "the window is larger than the padded input");
      if (ceil_mode) {
        out = ceilDiv(span, s) + 1;
        if ((out - 1) * s >= in + pb) --out;  // the last window must not start in the trailing padding
      } else {
        out = floorDiv(span, s) + 1;
      }
    }
    w.in[j] = in;
    w.kernel[j] = k;
    w.out[j] = out;
    w.stride[j] = s;
    w.dilation[j] = d;
    w.pad_begin[j] = pb;
    w.pad_end[j] = pe;
  }
  return w;
}

Shape windowOutputSpatial(const Window3& w, size_t spatial_rank) {
  return Shape(w.out + (3 - spatial_rank), w.out + 3);
}

std::vector<float> readScales(const Tensor& t, int64_t n, const char* what) {
  requireDType(t, DType::F32, what);
  require(t.numElements() == 1 || t.numElements() == n, std::string(what) + " has " + std::to_string(t.numElements()) +
                                                            " values, expected 1 or " + std::to_string(n));
  return t.toVector<float>();
}

std::vector<int32_t> readZeroPoints(const Tensor* t, int64_t n, const char* what) {
  if (!t) return {0};
  require(
      t->numElements() == 1 || t->numElements() == n,
      std::string(what) + " has " + std::to_string(t->numElements()) + " values, expected 1 or " + std::to_string(n));
  return toInt32(*t);
}

std::vector<int32_t> toInt32(const Tensor& t) {
  std::vector<int32_t> out(static_cast<size_t>(t.numElements()));
  switch (t.dtype()) {
    case DType::U8: std::copy(t.data<uint8_t>(), t.data<uint8_t>() + out.size(), out.begin()); break;
    case DType::I8: std::copy(t.data<int8_t>(), t.data<int8_t>() + out.size(), out.begin()); break;
    case DType::I32: std::copy(t.data<int32_t>(), t.data<int32_t>() + out.size(), out.begin()); break;
    default: throw KernelError(std::string("expected an u8, i8 or i32 tensor, got ") + dtypeName(t.dtype()));
  }
  return out;
}

void storeQuantized(Tensor& out, int64_t index, float value, int32_t zero_point) {
  switch (out.dtype()) {
    case DType::U8: out.data<uint8_t>()[index] = quantizeValue<uint8_t>(value, zero_point); break;
    case DType::I8: out.data<int8_t>()[index] = quantizeValue<int8_t>(value, zero_point); break;
    default: throw KernelError(std::string("quantised output must be u8 or i8, got ") + dtypeName(out.dtype()));
  }
}

}  // namespace vdla::rt::ref
