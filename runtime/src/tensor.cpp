#include "vdla/runtime/tensor.h"

#include <cstdint>
#include <cstring>
#include <sstream>

namespace vdla::rt {

size_t dtypeSize(DType dtype) {
  switch (dtype) {
    case DType::F32: return 4;
    case DType::I8: return 1;
    case DType::U8: return 1;
    case DType::I32: return 4;
    case DType::I64: return 8;
    case DType::Bool: return 1;
  }
  throw std::invalid_argument("unknown dtype " + std::to_string(static_cast<int>(dtype)));
}

const char* dtypeName(DType dtype) {
  switch (dtype) {
    case DType::F32: return "f32";
    case DType::I8: return "i8";
    case DType::U8: return "u8";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::Bool: return "bool";
  }
  return "?";
}

DType parseDType(const std::string& name) {
  for (DType d : {DType::F32, DType::I8, DType::U8, DType::I32, DType::I64, DType::Bool})
    if (name == dtypeName(d)) return d;
  throw std::invalid_argument("unknown element type '" + name + "'");
}

const char* layoutName(Layout layout) {
  switch (layout) {
    case Layout::RowMajor: return "rowmajor";
    case Layout::NCHW: return "nchw";
    case Layout::NHWC: return "nhwc";
  }
  return "?";
}

int64_t numElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("negative dimension in shape " + shapeToString(shape));
    // Shapes come from files; a product that does not fit is an error, not a wrap.
    if (__builtin_mul_overflow(n, d, &n))
      throw std::invalid_argument("shape " + shapeToString(shape) + " has too many elements");
  }
  return n;
}

std::string shapeToString(const Shape& shape) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? "," : "") << shape[i];
  out << "]";
  return out.str();
}

std::vector<int64_t> rowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

std::string TensorType::toString() const { return std::string(dtypeName(dtype)) + shapeToString(shape); }

Tensor::Tensor(TensorType type) : type_(std::move(type)) {
  buffer_ = std::make_shared<Bytes>();
  buffer_->words.assign((type_.byteSize() + 7) / 8, 0);
}

Tensor Tensor::view(TensorType type, void* data, std::shared_ptr<const void> owner) {
  if (reinterpret_cast<uintptr_t>(data) % kViewAlignment != 0)
    throw std::invalid_argument("Tensor::view: data of " + type.toString() + " is not aligned to " +
                                std::to_string(kViewAlignment) + " bytes");
  if (!data && type.byteSize() != 0) throw std::invalid_argument("Tensor::view: no data for " + type.toString());
  Tensor t;
  t.type_ = std::move(type);
  t.buffer_ = std::make_shared<Bytes>();
  t.buffer_->external = static_cast<uint8_t*>(data);
  t.buffer_->owner = std::move(owner);
  return t;
}

int64_t Tensor::dim(int64_t i) const {
  int64_t r = rank();
  if (i < -r || i >= r)
    throw std::out_of_range("dimension " + std::to_string(i) + " of a rank-" + std::to_string(r) + " tensor");
  return type_.shape[i < 0 ? i + r : i];
}

void Tensor::checkType(DType want) const {
  if (want != type_.dtype)
    throw std::invalid_argument(std::string("tensor of type ") + dtypeName(type_.dtype) + " accessed as " +
                                dtypeName(want));
}

double Tensor::getAsDouble(int64_t i) const {
  switch (type_.dtype) {
    case DType::F32: return data<float>()[i];
    case DType::I8: return data<int8_t>()[i];
    case DType::U8: return data<uint8_t>()[i];
    case DType::I32: return data<int32_t>()[i];
    case DType::I64: return static_cast<double>(data<int64_t>()[i]);
    case DType::Bool: return data<bool>()[i] ? 1.0 : 0.0;
  }
  return 0;
}

int64_t Tensor::getAsInt(int64_t i) const {
  switch (type_.dtype) {
    case DType::F32: return static_cast<int64_t>(data<float>()[i]);
    case DType::I8: return data<int8_t>()[i];
    case DType::U8: return data<uint8_t>()[i];
    case DType::I32: return data<int32_t>()[i];
    case DType::I64: return data<int64_t>()[i];
    case DType::Bool: return data<bool>()[i] ? 1 : 0;
  }
  return 0;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (vdla::rt::numElements(shape) != numElements())
    throw std::invalid_argument("cannot reshape " + type_.toString() + " to " + shapeToString(shape));
  Tensor t = *this;
  t.type_.shape = std::move(shape);
  return t;
}

Tensor Tensor::clone() const {
  Tensor t(type_);
  if (byteSize()) std::memcpy(t.raw(), raw(), byteSize());
  return t;
}

}  // namespace vdla::rt
