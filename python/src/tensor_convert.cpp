#include "tensor_convert.h"

#include <cstdint>
#include <cstring>
#include <memory>

#include "vdla/hw/error.h"

namespace vdla::python {

namespace {

nb::dlpack::dtype dlpackOf(rt::DType dtype) {
  switch (dtype) {
    case rt::DType::F32: return nb::dtype<float>();
    case rt::DType::I8: return nb::dtype<int8_t>();
    case rt::DType::U8: return nb::dtype<uint8_t>();
    case rt::DType::I32: return nb::dtype<int32_t>();
    case rt::DType::I64: return nb::dtype<int64_t>();
    case rt::DType::Bool: return nb::dtype<bool>();
  }
  throw Error("no NumPy type for tensor type " + std::string(rt::dtypeName(dtype)));
}

}  // namespace

const char* numpyDtypeName(rt::DType dtype) {
  switch (dtype) {
    case rt::DType::F32: return "float32";
    case rt::DType::I8: return "int8";
    case rt::DType::U8: return "uint8";
    case rt::DType::I32: return "int32";
    case rt::DType::I64: return "int64";
    case rt::DType::Bool: return "bool";
  }
  return "?";
}

rt::DType dtypeOfArray(const InArray& array, const std::string& what) {
  const nb::dlpack::dtype d = array.dtype();
  for (rt::DType t : {rt::DType::F32, rt::DType::I8, rt::DType::U8, rt::DType::I32, rt::DType::I64, rt::DType::Bool})
    if (dlpackOf(t) == d) return t;
  const char* kinds[] = {"int", "uint", "float", "opaque", "bfloat", "complex", "bool"};
  const std::string kind = d.code < 7 ? kinds[d.code] : "type code " + std::to_string(d.code);
  throw Error(what + ": arrays of " + kind + std::to_string(d.bits) +
              " are not supported; use float32, int8, uint8, int32, int64 or bool");
}

rt::Tensor tensorFromArray(const InArray& array, const std::string& what) {
  const rt::DType dtype = dtypeOfArray(array, what);
  rt::Shape shape;
  for (size_t i = 0; i < array.ndim(); ++i) shape.push_back(static_cast<int64_t>(array.shape(i)));
  const rt::TensorType type{dtype, shape, rt::Layout::RowMajor};
  const size_t elem = rt::dtypeSize(dtype);
  const auto* src = static_cast<const uint8_t*>(array.data());
  // Element strides of a row-major array; anything else is copied element by element.
  bool contiguous = true;
  int64_t expect = 1;
  for (size_t i = array.ndim(); i-- > 0;) {
    if (array.shape(i) != 1 && array.stride(i) != expect) contiguous = false;
    expect *= static_cast<int64_t>(array.shape(i));
  }
  if (contiguous && reinterpret_cast<uintptr_t>(src) % rt::Tensor::kViewAlignment == 0 && type.byteSize() > 0) {
    // The view holds its own reference to the array, released with the GIL
    // held whichever thread drops the tensor last.
    std::shared_ptr<const void> owner(new InArray(array), [](const void* p) {
      nb::gil_scoped_acquire gil;
      delete static_cast<const InArray*>(p);
    });
    return rt::Tensor::view(type, const_cast<uint8_t*>(src), std::move(owner));
  }
  rt::Tensor tensor(type);
  auto* dst = static_cast<uint8_t*>(tensor.raw());
  if (contiguous) {
    if (tensor.byteSize()) std::memcpy(dst, src, tensor.byteSize());
    return tensor;
  }
  const int64_t n = tensor.numElements();
  std::vector<int64_t> index(array.ndim(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t offset = 0;
    for (size_t i = 0; i < array.ndim(); ++i) offset += index[i] * array.stride(i);
    std::memcpy(dst + size_t(k) * elem, src + offset * int64_t(elem), elem);
    for (size_t i = array.ndim(); i-- > 0;) {
      if (++index[i] < static_cast<int64_t>(array.shape(i))) break;
      index[i] = 0;
    }
  }
  return tensor;
}

nb::object arrayFromTensor(rt::Tensor tensor) {
  auto* owned = new rt::Tensor(std::move(tensor));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<rt::Tensor*>(p); });
  std::vector<size_t> shape(owned->shape().begin(), owned->shape().end());
  NumpyArray array(owned->raw(), shape.size(), shape.data(), owner, nullptr, dlpackOf(owned->dtype()));
  return nb::cast(std::move(array));
}

}  // namespace vdla::python
