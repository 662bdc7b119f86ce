// Tensors shared by the compiler and the runtime: element type, shape and an
// owned, contiguous row-major buffer. Kept free of any compile-time library so
// that the runtime cross-compiles for the boards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace vdla::rt {

enum class DType : uint8_t { F32 = 0, I8 = 1, U8 = 2, I32 = 3, I64 = 4, Bool = 5 };

size_t dtypeSize(DType dtype);
const char* dtypeName(DType dtype);
// Parses the names dtypeName() produces ("f32", "i8", ...); throws on others.
DType parseDType(const std::string& name);

template <typename T>
constexpr DType dtypeOf() {
  if constexpr (std::is_same_v<T, float>)
    return DType::F32;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DType::I8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::U8;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::I32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::I64;
  else if constexpr (std::is_same_v<T, bool>)
    return DType::Bool;
  else
    static_assert(sizeof(T) == 0, "no DType for this C++ type");
}

using Shape = std::vector<int64_t>;

// Number of elements; 1 for a scalar (rank 0). Throws on a negative dimension.
int64_t numElements(const Shape& shape);
std::string shapeToString(const Shape& shape);  // "[1,3,224,224]"
// Row-major strides in elements.
std::vector<int64_t> rowMajorStrides(const Shape& shape);

// Memory layout of an activation tensor. Graph tensors are NCHW (as ONNX);
// backends may choose blocked layouts for their own buffers.
enum class Layout : uint8_t { RowMajor = 0, NCHW = 1, NHWC = 2 };
const char* layoutName(Layout layout);

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  Layout layout = Layout::RowMajor;

  int64_t numElements() const { return vdla::rt::numElements(shape); }
  size_t byteSize() const { return static_cast<size_t>(numElements()) * dtypeSize(dtype); }
  std::string toString() const;  // "f32[1,3,224,224]"
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const TensorType& o) const { return !(*this == o); }
};

// A dense tensor with an owned buffer. Copies share the buffer (copy-on-write is
// not needed: kernels write only to tensors they allocated).
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(TensorType type);  // zero-filled
  Tensor(DType dtype, Shape shape) : Tensor(TensorType{dtype, std::move(shape), Layout::RowMajor}) {}

  template <typename T>
  static Tensor fromVector(Shape shape, const std::vector<T>& values) {
    Tensor t(dtypeOf<T>(), std::move(shape));
    if (static_cast<int64_t>(values.size()) != t.numElements())
      throw std::invalid_argument("Tensor::fromVector: " + std::to_string(values.size()) + " values for shape " +
                                  shapeToString(t.shape()));
    for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
    return t;
  }
  template <typename T>
  static Tensor scalar(T value) {
    return fromVector<T>({}, {value});
  }
  // A tensor over memory it does not own (a NumPy array's, say): `owner`
  // keeps the memory alive as long as any copy of the tensor. The data must
  // be row-major and aligned to kViewAlignment, as the tensors' own buffers
  // are; throws std::invalid_argument otherwise.
  static constexpr size_t kViewAlignment = 16;
  static Tensor view(TensorType type, void* data, std::shared_ptr<const void> owner);

  const TensorType& type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  int64_t rank() const { return static_cast<int64_t>(type_.shape.size()); }
  int64_t dim(int64_t i) const;  // negative counts from the end
  int64_t numElements() const { return type_.numElements(); }
  size_t byteSize() const { return type_.byteSize(); }
  bool empty() const { return !buffer_; }

  void* raw() { return buffer_ ? buffer_->data() : nullptr; }
  const void* raw() const { return buffer_ ? buffer_->data() : nullptr; }

  // Typed access; throws when T does not match the element type.
  template <typename T>
  T* data() {
    checkType(dtypeOf<T>());
    return reinterpret_cast<T*>(raw());
  }
  template <typename T>
  const T* data() const {
    checkType(dtypeOf<T>());
    return reinterpret_cast<const T*>(raw());
  }
  template <typename T>
  std::vector<T> toVector() const {
    const T* p = data<T>();
    return std::vector<T>(p, p + numElements());
  }

  // Element i converted to double / int64 whatever the element type.
  double getAsDouble(int64_t i) const;
  int64_t getAsInt(int64_t i) const;

  // Same buffer, new shape with the same number of elements.
  Tensor reshaped(Shape shape) const;
  // A deep copy.
  Tensor clone() const;

 private:
  void checkType(DType want) const;

  TensorType type_;
  // Stored as 64-bit words so that every element type is aligned; or, for a
  // view, memory kept alive by `owner`.
  struct Bytes {
    std::vector<uint64_t> words;
    uint8_t* external = nullptr;
    std::shared_ptr<const void> owner;
    uint8_t* data() { return external ? external : reinterpret_cast<uint8_t*>(words.data()); }
    const uint8_t* data() const { return external ? external : reinterpret_cast<const uint8_t*>(words.data()); }
  };
  std::shared_ptr<Bytes> buffer_;
};

}  // namespace vdla::rt
