#include "tensor_proto.h"

#include <cstring>
#include <limits>
#include <stdexcept>

#include "import_limits.h"

namespace vdla::frontend::detail {

namespace {

using TP = onnx::TensorProto;

// raw_data is little-endian; the hosts and boards the runtime targets are too.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "raw_data decoding assumes a little-endian host");

template <typename T, typename Field>
void copyTyped(const Field& field, rt::Tensor& t, const char* field_name) {
  const int64_t n = t.numElements();
  if (static_cast<int64_t>(field.size()) != n)
    throw std::runtime_error(std::string(field_name) + " holds " + std::to_string(field.size()) + " values for shape " +
                             rt::shapeToString(t.shape()) + " (" + std::to_string(n) + " elements)");
  T* out = t.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    auto v = field.Get(static_cast<int>(i));
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      using Wide = decltype(v);
      if constexpr (std::is_integral_v<Wide>) {
        if (v < static_cast<Wide>(std::numeric_limits<T>::min()) ||
            v > static_cast<Wide>(std::numeric_limits<T>::max()))
          throw std::runtime_error(std::string(field_name) + " value " + std::to_string(v) + " at index " +
                                   std::to_string(i) + " does not fit the element type");
      }
    }
    if constexpr (std::is_same_v<T, bool>) {
      out[i] = v != 0;
    } else {
      out[i] = static_cast<T>(v);
    }
  }
}

}  // namespace

std::string onnxTypeName(int32_t elem_type) {
  if (TP::DataType_IsValid(elem_type)) return TP::DataType_Name(static_cast<TP::DataType>(elem_type));
  return "type " + std::to_string(elem_type);
}

rt::DType dtypeFromOnnx(int32_t elem_type) {
  switch (elem_type) {
    case TP::FLOAT: return rt::DType::F32;
    case TP::INT8: return rt::DType::I8;
    case TP::UINT8: return rt::DType::U8;
    case TP::INT32: return rt::DType::I32;
    case TP::INT64: return rt::DType::I64;
    case TP::BOOL: return rt::DType::Bool;
    default: break;
  }
  throw std::runtime_error("element type " + onnxTypeName(elem_type) +
                           " is not supported (supported: FLOAT, INT8, UINT8, INT32, INT64, BOOL)");
}

int32_t onnxFromDtype(rt::DType dtype) {
  switch (dtype) {
    case rt::DType::F32: return TP::FLOAT;
    case rt::DType::I8: return TP::INT8;
    case rt::DType::U8: return TP::UINT8;
    case rt::DType::I32: return TP::INT32;
    case rt::DType::I64: return TP::INT64;
    case rt::DType::Bool: return TP::BOOL;
  }
  return TP::UNDEFINED;
}

rt::Tensor tensorFromProto(const onnx::TensorProto& proto) {
  if (proto.data_location() == TP::EXTERNAL || proto.external_data_size() > 0)
    throw std::runtime_error(
        "its data is stored in an external file, which is not supported (save the model "
        "with its weights inside the .onnx file)");
  if (proto.has_segment()) throw std::runtime_error("segmented tensors are not supported");
  if (!proto.has_data_type()) throw std::runtime_error("it has no data_type");
  const rt::DType dtype = dtypeFromOnnx(proto.data_type());
  rt::Shape shape(proto.dims().begin(), proto.dims().end());
  const int64_t n = checkedNumElements(shape, dtype, "tensor");

  // Every size is checked against the data actually present before the tensor
  // is allocated, so that a tiny file cannot request a huge buffer.
  const bool has_raw = proto.has_raw_data();
  const int typed_count = proto.float_data_size() + proto.int32_data_size() + proto.int64_data_size() +
                          proto.double_data_size() + proto.uint64_data_size() + proto.string_data_size();
  if (has_raw && typed_count > 0) throw std::runtime_error("it has both raw_data and typed data fields");
  if (has_raw) {
    const std::string& raw = proto.raw_data();
    const uint64_t want = static_cast<uint64_t>(n) * rt::dtypeSize(dtype);
    if (raw.size() != want)
      throw std::runtime_error("raw_data has " + std::to_string(raw.size()) + " bytes, but shape " +
                               rt::shapeToString(shape) + " of " + onnxTypeName(proto.data_type()) + " needs " +
                               std::to_string(want));
    rt::Tensor t(dtype, shape);
    if (dtype == rt::DType::Bool) {
      auto* out = t.data<bool>();
      for (int64_t i = 0; i < n; ++i) out[i] = raw[static_cast<size_t>(i)] != 0;
    } else if (want > 0) {
      std::memcpy(t.raw(), raw.data(), raw.size());
    }
    return t;
  }
  if (typed_count == 0) {
    if (n == 0) return rt::Tensor(dtype, shape);
    throw std::runtime_error("it has no data for shape " + rt::shapeToString(shape));
  }
  if (typed_count != n)
    throw std::runtime_error("it holds " + std::to_string(typed_count) + " values for shape " +
                             rt::shapeToString(shape) + " (" + std::to_string(n) + " elements)");
  rt::Tensor t(dtype, shape);
  switch (dtype) {
    case rt::DType::F32:
      if (proto.float_data_size() != typed_count) break;
      copyTyped<float>(proto.float_data(), t, "float_data");
      return t;
    case rt::DType::I8:
      if (proto.int32_data_size() != typed_count) break;
      copyTyped<int8_t>(proto.int32_data(), t, "int32_data");
      return t;
    case rt::DType::U8:
      if (proto.int32_data_size() != typed_count) break;
      copyTyped<uint8_t>(proto.int32_data(), t, "int32_data");
      return t;
    case rt::DType::I32:
      if (proto.int32_data_size() != typed_count) break;
      copyTyped<int32_t>(proto.int32_data(), t, "int32_data");
      return t;
    case rt::DType::Bool:
      if (proto.int32_data_size() != typed_count) break;
      copyTyped<bool>(proto.int32_data(), t, "int32_data");
      return t;
    case rt::DType::I64:
      if (proto.int64_data_size() != typed_count) break;
      copyTyped<int64_t>(proto.int64_data(), t, "int64_data");
      return t;
  }
  throw std::runtime_error("its data is in a field that does not match its element type " +
                           onnxTypeName(proto.data_type()));
}

}  // namespace vdla::frontend::detail
