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

// One row of CMYK samples as libjpeg returns them, to RGB the way PIL's
// Image.open(...).convert("RGB") does. PIL reads every 4-channel JPEG with
// Adobe's polarity (stored samples are 255 - ink), then converts with
//   R = (255 - K) - round(C * (255 - K) / 255)   (likewise G from M, B from Y)
// which is not the naive 255 - min(255, C + K). x / 255 never ends in .5, so
// rounding is floor((x + 127) / 255).
void cmykRowToRgb(const uint8_t* cmyk, uint8_t* rgb, size_t width) {
  for (size_t x = 0; x < width; ++x, cmyk += 4, rgb += 3) {
    const int paper = cmyk[3];  // 255 - K: the light the black ink lets through
    for (int c = 0; c < 3; ++c) {
      const int ink = 255 - cmyk[c];
      rgb[c] = static_cast<uint8_t>(paper - (ink * paper + 127) / 255);
    }
  }
}

}  // namespace

Image decodeJpeg(const uint8_t* data, size_t size, const std::string& source) {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  Image image;
  std::vector<JSAMPROW> rows;
  std::vector<uint8_t> cmyk_row;
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
  // Grey and YCbCr become RGB inside libjpeg (grey replicated, as PIL's
  // convert("RGB")); CMYK (and YCCK, which libjpeg turns into CMYK) comes out
  // as CMYK and is converted here as PIL converts it.
  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  if (uint64_t{cinfo.image_width} * cinfo.image_height > kMaxImagePixels) {
    jpeg_destroy_decompress(&cinfo);
    throw ImageError(source + ": JPEG image of " + std::to_string(cinfo.image_width) + "x" +
                     std::to_string(cinfo.image_height) + " pixels is too large");
  }
  jpeg_start_decompress(&cinfo);
  image.width = static_cast<int>(cinfo.output_width);
  image.height = static_cast<int>(cinfo.output_height);
  image.pixels.resize(size_t{cinfo.output_width} * cinfo.output_height * 3);
  cmyk_row.resize(cmyk ? size_t{cinfo.output_width} * 4 : 0);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW rgb_row = image.pixels.data() + size_t{cinfo.output_scanline} * cinfo.output_width * 3;
    JSAMPROW row = cmyk ? cmyk_row.data() : rgb_row;
    jpeg_read_scanlines(&cinfo, &row, 1);
    if (cmyk) cmykRowToRgb(cmyk_row.data(), rgb_row, cinfo.output_width);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return image;
}

}  // namespace vdla::rt::detail
