#pragma once
// Tensors as NumPy .npy files (format version 1.0/2.0: a magic string, a
// header dictionary, then the data in C order): the way to give a model an
// exact input and keep its exact outputs, and to compare them with other
// frameworks. Little-endian f32, i8, u8, i32, i64 and bool.
#include <string>

#include "vdla/runtime/tensor.h"

namespace vdla::rt {

// Throws std::runtime_error naming the file and what is wrong with it
// (not .npy, Fortran order, an unsupported or big-endian type, short data).
Tensor loadNpy(const std::string& path);
// Throws std::runtime_error naming the file when it cannot be written.
void saveNpy(const std::string& path, const Tensor& tensor);

}  // namespace vdla::rt
