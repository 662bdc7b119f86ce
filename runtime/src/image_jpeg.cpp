// JPEG decoding with libjpeg(-turbo), the library PIL uses, with its default
// settings (islow IDCT, fancy upsampling), so that decoded pixels are the same.
// libjpeg reports errors through a callback that must not return; it longjmps
// back here (no C++ object is created between setjmp and the jump's target
// other than those that live in this frame throughout).
#include <csetjmp>
#include <cstdio>
#include <jpeglib.h>
#include <jerror.h>

#include "image_decoders.h"

namespace vdla::rt::detail {

namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void onError(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings mean damaged data that libjpeg papers over (a truncated file is
// padded with grey). They are errors here, except for stray bytes between
// markers, which many valid files contain.
void onMessage(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  if (cinfo->err->msg_code == JWRN_EXTRANEOUS_DATA) return;
  onError(cinfo);
}

}  // namespace

Image decodeJpeg(const uint8_t* data, size_t size, const std::string& source) {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  Image image;
  std::vector<JSAMPROW> rows;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = onError;
  err.pub.emit_message = onMessage;
  err.message[0] = '\0';
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    throw ImageError(source + ": bad JPEG image: " + err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&cinfo);
    throw ImageError(source + ": CMYK JPEG images are not supported");
  }
  cinfo.out_color_space = JCS_RGB;
  if (uint64_t{cinfo.image_width} * cinfo.image_height > kMaxImagePixels) {
    jpeg_destroy_decompress(&cinfo);
    throw ImageError(source + ": JPEG image of " + std::to_string(cinfo.image_width) + "x" +
                     std::to_string(cinfo.image_height) + " pixels is too large");
  }
  jpeg_start_decompress(&cinfo);
  image.width = static_cast<int>(cinfo.output_width);
  image.height = static_cast<int>(cinfo.output_height);
  image.pixels.resize(size_t{cinfo.output_width} * cinfo.output_height * 3);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = image.pixels.data() + size_t{cinfo.output_scanline} * cinfo.output_width * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return image;
}

}  // namespace vdla::rt::detail
