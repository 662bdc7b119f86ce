#pragma once
// NumPy arrays in and out of the toolkit's tensors, without copies where the
// layout allows: outputs are handed over (the array owns the tensor's
// buffer); a row-major input aligned as the runtime's own buffers is viewed in
// place (rt::Tensor::view, the tensor keeping the array alive), any other is
// copied once.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "vdla/runtime/tensor.h"

namespace vdla::python {

namespace nb = nanobind;

// Any array on the CPU (NumPy, or anything with DLPack or the buffer protocol).
using InArray = nb::ndarray<nb::ro, nb::device::cpu>;
using NumpyArray = nb::ndarray<nb::numpy>;

// The array's element type as a tensor DType; throws vdla::Error naming `what`
// for one the toolkit has no type for.
rt::DType dtypeOfArray(const InArray& array, const std::string& what);

// `array` as a tensor: a view of its memory when it is row-major and aligned,
// else a row-major copy; `what` names it in errors. The runtime only reads
// its inputs, so a view of a read-only array is safe.
rt::Tensor tensorFromArray(const InArray& array, const std::string& what);

// The tensor as a NumPy array sharing its buffer.
nb::object arrayFromTensor(rt::Tensor tensor);

// "float32", "int8", ...: NumPy's name for a DType.
const char* numpyDtypeName(rt::DType dtype);

}  // namespace vdla::python
