#pragma once
// NumPy arrays in and out of the toolkit's tensors. Outputs are handed over
// without a copy (the array owns the tensor's buffer); inputs are copied into
// a tensor once, because the executor's tensors own their memory.
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

// A C-contiguous copy of `array` as a tensor; `what` names it in errors.
rt::Tensor tensorFromArray(const InArray& array, const std::string& what);

// The tensor as a NumPy array sharing its buffer.
nb::object arrayFromTensor(rt::Tensor tensor);

// "float32", "int8", ...: NumPy's name for a DType.
const char* numpyDtypeName(rt::DType dtype);

}  // namespace vdla::python
