// PNG decoding with stb_image (header-only, compiled here with PNG support
// only and internal linkage).
#include "image_decoders.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_NO_THREAD_LOCALS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

#include <cstring>
#include <memory>
#include <mutex>

namespace vdla::rt::detail {

Image decodePng(const uint8_t* data, size_t size, const std::string& source) {
  if (size > static_cast<size_t>(INT32_MAX)) throw ImageError(source + ": PNG file too large");
  // stb's failure reason is a global; serialise so the message is ours.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(data, static_cast<int>(size), &w, &h, &channels))
    throw ImageError(source + ": bad PNG image: " + stbi_failure_reason());
  if (w <= 0 || h <= 0 || uint64_t(w) * uint64_t(h) > kMaxImagePixels)
    throw ImageError(source + ": PNG image of " + std::to_string(w) + "x" + std::to_string(h) +
                     " pixels is empty or too large");
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(data, static_cast<int>(size), &w, &h, &channels, 3), stbi_image_free);
  if (!pixels) throw ImageError(source + ": bad PNG image: " + stbi_failure_reason());
  Image image;
  image.width = w;
  image.height = h;
  image.pixels.assign(pixels.get(), pixels.get() + size_t(w) * size_t(h) * 3);
  return image;
}

}  // namespace vdla::rt::detail
