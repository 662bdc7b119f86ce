#include "vdla/runtime/accel/packed_layout.h"

#include <cstring>
#include <stdexcept>

namespace vdla::rt::accel {

PackedGeometry packedGeometry(const Shape& nchw, int64_t batch, int64_t block) {
  if (nchw.size() != 4) throw std::invalid_argument("packed activations are 4-D NCHW, got " + shapeToString(nchw));
  if (batch < 1 || block < 1) throw std::invalid_argument("packed layout: batch and block must be positive");
  return PackedGeometry{nchw[0], nchw[1], nchw[2], nchw[3], batch, block};
}

static void checkTensor(const Tensor& t, const PackedGeometry& g, const char* what) {
  if (t.dtype() != DType::I8) throw std::invalid_argument(std::string(what) + ": int8 tensor expected");
  if (t.shape() != Shape{g.n, g.c, g.h, g.w})
    throw std::invalid_argument(std::string(what) + ": tensor " + shapeToString(t.shape()) +
                                " does not match the packed geometry");
}

void packActivation(const Tensor& x, const PackedGeometry& g, int8_t* out) {
  checkTensor(x, g, "packActivation");
  std::memset(out, 0, static_cast<size_t>(g.bytes()));
  const int8_t* src = x.data<int8_t>();
  const int64_t plane = g.h * g.w, cb_count = g.channelBlocks();
  for (int64_t n = 0; n < g.n; ++n) {
    const int64_t nb = n / g.batch, b = n % g.batch;
    for (int64_t c = 0; c < g.c; ++c) {
      const int64_t cb = c / g.block, k = c % g.block;
      const int8_t* s = src + (n * g.c + c) * plane;
      int8_t* d = out + ((nb * cb_count + cb) * plane) * g.entryBytes() + b * g.block + k;
      for (int64_t p = 0; p < plane; ++p) d[p * g.entryBytes()] = s[p];
    }
  }
}

void unpackActivation(const int8_t* packed, const PackedGeometry& g, Tensor& y) {
  checkTensor(y, g, "unpackActivation");
  int8_t* dst = y.data<int8_t>();
  const int64_t plane = g.h * g.w, cb_count = g.channelBlocks();
  for (int64_t n = 0; n < g.n; ++n) {
    const int64_t nb = n / g.batch, b = n % g.batch;
    for (int64_t c = 0; c < g.c; ++c) {
      const int64_t cb = c / g.block, k = c % g.block;
      const int8_t* s = packed + ((nb * cb_count + cb) * plane) * g.entryBytes() + b * g.block + k;
      int8_t* d = dst + (n * g.c + c) * plane;
      for (int64_t p = 0; p < plane; ++p) d[p] = s[p * g.entryBytes()];
    }
  }
}

Shape transformedShape(const Shape& s, const InputTransform& t) {
  if (s.size() != 4) throw std::invalid_argument("input transform: 4-D NCHW expected");
  const int64_t hp = s[2] + t.pad_top + t.pad_bottom, wp = s[3] + t.pad_left + t.pad_right;
  if (t.space_to_depth < 1 || (t.im2col && t.space_to_depth != 1))
    throw std::invalid_argument("input transform: space-to-depth block must be 1 with im2col, and at least 1");
  if (t.space_to_depth > 1) {
    const int64_t b = t.space_to_depth;
    return {s[0], s[1] * b * b, (hp + b - 1) / b, (wp + b - 1) / b};
  }
  if (!t.im2col) return {s[0], s[1], hp, wp};
  if (t.kh < 1 || t.kw < 1 || t.sh < 1 || t.sw < 1 || hp < t.kh || wp < t.kw)
    throw std::invalid_argument("input transform: im2col kernel does not fit the padded input");
  return {s[0], s[1] * t.kh * t.kw, (hp - t.kh) / t.sh + 1, (wp - t.kw) / t.sw + 1};
}

Tensor applyInputTransform(const Tensor& x, const InputTransform& t) {
  if (x.dtype() != DType::I8) throw std::invalid_argument("input transform: int8 tensor expected");
  const Shape& s = x.shape();
  const Shape out_shape = transformedShape(s, t);
  Tensor y(DType::I8, out_shape);
  const int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  const int8_t* src = x.data<int8_t>();
  int8_t* dst = y.data<int8_t>();
  // Value of the padded input at (n, c, py, px) in padded coordinates.
  auto at = [&](int64_t n, int64_t c, int64_t py, int64_t px) -> int8_t {
    const int64_t iy = py - t.pad_top, ix = px - t.pad_left;
    if (iy < 0 || iy >= H || ix < 0 || ix >= W) return t.pad_value;
    return src[((n * C + c) * H + iy) * W + ix];
  };
  const int64_t OC = out_shape[1], OH = out_shape[2], OW = out_shape[3];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc) {
      // The input plane and the offset within a window or block that this output channel takes.
      int64_t c = oc, ky = 0, kx = 0, sy = 1, sx = 1;
      if (t.im2col) {
        c = oc / (t.kh * t.kw);
        ky = (oc / t.kw) % t.kh;
        kx = oc % t.kw;
        sy = t.sh;
        sx = t.sw;
      } else if (t.space_to_depth > 1) {
        const int64_t b = t.space_to_depth;
        c = oc / (b * b);
        ky = (oc / b) % b;
        kx = oc % b;
        sy = sx = b;
      }
      int8_t* d = dst + (n * OC + oc) * OH * OW;
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) d[oy * OW + ox] = at(n, c, oy * sy + ky, ox * sx + kx);
    }
  return y;
}

}  // namespace vdla::rt::accel
