// The format-specific decoders behind decodeImage (image.cpp).
#pragma once

#include "vdla/runtime/image.h"

namespace vdla::rt::detail {

// Largest image accepted, in pixels (a guard against decompression bombs and
// damaged headers): 16k x 16k.
constexpr uint64_t kMaxImagePixels = uint64_t{1} << 28;

Image decodeJpeg(const uint8_t* data, size_t size, const std::string& source);
Image decodePng(const uint8_t* data, size_t size, const std::string& source);

}  // namespace vdla::rt::detail
