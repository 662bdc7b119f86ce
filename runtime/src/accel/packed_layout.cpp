#include "vdla/runtime/accel/packed_layout.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace vdla::rt::accel {

PackedGeometry packedGeometry(const Shape& nchw, int64_t batch, int64_t block) {
  if (nchw.size() != 4) throw std::invalid_argument("packed activations are 4-D NCHW, got " + shapeToString(nchw));
  if (batch < 1 || block < 1) throw std::invalid_argument("packed layout: batch and block must be positive");
  return PackedGeometry{nchw[0], nchw[1], nchw[2], nchw[3], batch, block};
}

namespace {

// d[i*stride] = s[i*sx] for i < n, four at a time: on a small in-order core
// the loop's own increments and branch cost as much as the copy.
void stridedCopy(int8_t* d, ptrdiff_t stride, const int8_t* s, int sx, int n) {
  const ptrdiff_t d2 = 2 * stride, d3 = 3 * stride, d4 = 4 * stride;
  const int s2 = 2 * sx, s3 = 3 * sx, s4 = 4 * sx;
  int i = 0;
  for (; i + 4 <= n; i += 4, d += d4, s += s4) {
    d[0] = s[0];
    d[stride] = s[sx];
    d[d2] = s[s2];
    d[d3] = s[s3];
  }
  for (; i < n; ++i, d += stride, s += sx) *d = *s;
}

}  // namespace

static void checkTensor(const Tensor& t, const PackedGeometry& g, const char* what) {
  if (t.dtype() != DType::I8) throw std::invalid_argument(std::string(what) + ": int8 tensor expected");
  if (t.shape() != Shape{g.n, g.c, g.h, g.w})
    throw std::invalid_argument(std::string(what) + ": tensor " + shapeToString(t.shape()) +
                                " does not match the packed geometry");
}

void packActivation(const Tensor& x, const PackedGeometry& g, int8_t* out) {
  checkTensor(x, g, "packActivation");
  packTransformedActivation(x, InputTransform{}, g.batch, g.block, out);
}

void unpackActivation(const int8_t* packed, const PackedGeometry& g, Tensor& y) {
  checkTensor(y, g, "unpackActivation");
  int8_t* dst = y.data<int8_t>();
  // Pointer steps rather than per-element 64-bit index arithmetic, which a
  // 32-bit host core does in several instructions (or a library call).
  const ptrdiff_t plane = ptrdiff_t(g.h * g.w), entry = ptrdiff_t(g.entryBytes());
  const int64_t blocks = g.channelBlocks();
  for (int64_t n = 0; n < g.n; ++n) {
    const int8_t* group = packed + (n / g.batch) * blocks * plane * entry + (n % g.batch) * g.block;
    for (int64_t cb = 0; cb < blocks; ++cb) {
      const int8_t* block = group + cb * plane * entry;
      for (int64_t k = 0; k < g.block && cb * g.block + k < g.c; ++k) {
        const int8_t* s = block + k;
        int8_t* d = dst + (n * g.c + cb * g.block + k) * plane;
        stridedCopy(d, 1, s, int(entry), int(plane));
      }
    }
  }
}

Shape transformedShape(const Shape& s, const InputTransform& t) {
  if (s.size() != 4) throw std::invalid_argument("input transform: 4-D NCHW expected");
  const int64_t hp = s[2] + t.pad_top + t.pad_bottom, wp = s[3] + t.pad_left + t.pad_right;
  if (t.space_to_depth < 1 || (t.im2col && t.space_to_depth != 1))
    throw std::invalid_argument("input transform: space-to-depth block must be 1 with im2col, and at least 1");
  if (t.unfold_columns < 1 || (t.im2col && t.unfold_columns != 1))
    throw std::invalid_argument("input transform: column unfold must be 1 with im2col, and at least 1");
  if (t.space_to_depth > 1 || t.unfold_columns > 1) {
    const int64_t b = t.space_to_depth, u = t.unfold_columns;
    return {s[0], s[1] * b * b * u, (hp + b - 1) / b, (wp + b - 1) / b};
  }
  if (!t.im2col) return {s[0], s[1], hp, wp};
  if (t.kh < 1 || t.kw < 1 || t.sh < 1 || t.sw < 1 || hp < t.kh || wp < t.kw)
    throw std::invalid_argument("input transform: im2col kernel does not fit the padded input");
  return {s[0], s[1] * t.kh * t.kw, (hp - t.kh) / t.sh + 1, (wp - t.kw) / t.sw + 1};
}

namespace {

// Where output channel oc of a transform takes its values: input channel c
// at (oy*sy + ky, ox*sx + kx) of the padded input. In int: a 32-bit host
// core divides 64-bit values in a library call of a hundred instructions.
struct ChannelSource {
  int c, ky, kx, sy, sx;
};

ChannelSource sourceOf(const InputTransform& t, int oc, int input_channels) {
  if (t.im2col) {
    const int kh = int(t.kh), kw = int(t.kw);
    return {oc / (kh * kw), (oc / kw) % kh, oc % kw, int(t.sh), int(t.sw)};
  }
  // Space-to-depth and column unfold: channel j*C' + c' (C' = C*b*b) is
  // channel c' of the space-to-depth result one entry j to the right, b*j
  // columns further in the padded input.
  const int b = int(t.space_to_depth), per_column = input_channels * b * b;
  const int j = oc / per_column, c = oc % per_column;
  return {c / (b * b), (c / b) % b, j * b + c % b, b, b};
}

// Writes one output plane of the transform: element (oy, ox) to
// out[(oy*ow + ox) * stride], from the input plane `in` (h x w). Each row is
// the padding, or a run of padding, a strided copy and padding again. The
// loops use int and pointer steps: on a 32-bit host core 64-bit index
// arithmetic costs several instructions per byte.
void writePlane(const int8_t* in, int h, int w, const InputTransform& t, const ChannelSource& s, int oh, int ow,
                int8_t* out, ptrdiff_t stride) {
  const int8_t pad = t.pad_value;
  const int sx = s.sx, first = s.kx - int(t.pad_left);        // the input column of ox = 0
  int lo = first >= 0 ? 0 : (-first + sx - 1) / sx;           // first ox inside the input
  int hi = w - 1 - first < 0 ? 0 : (w - 1 - first) / sx + 1;  // past the last
  lo = std::min(lo, ow);
  hi = std::max(lo, std::min(hi, ow));
  for (int oy = 0; oy < oh; ++oy, out += ptrdiff_t(ow) * stride) {
    const int iy = oy * s.sy + s.ky - int(t.pad_top);
    int8_t* d = out;
    if (iy < 0 || iy >= h) {
      for (int ox = 0; ox < ow; ++ox, d += stride) *d = pad;
      continue;
    }
    const int8_t* src = in + ptrdiff_t(iy) * w + first + lo * sx;
    int ox = 0;
    for (; ox < lo; ++ox, d += stride) *d = pad;
    stridedCopy(d, stride, src, sx, hi - lo);
    d += ptrdiff_t(hi - lo) * stride;
    for (ox = hi; ox < ow; ++ox, d += stride) *d = pad;
  }
}

// Calls write(n, oc, source, plane) for every output plane, with the input
// plane it reads.
template <class Write>
void forEachPlane(const Tensor& x, const InputTransform& t, const Shape& out_shape, Write&& write) {
  if (x.dtype() != DType::I8) throw std::invalid_argument("input transform: int8 tensor expected");
  const Shape& s = x.shape();
  for (int64_t d : {s[1], s[2], s[3], out_shape[1], out_shape[2], out_shape[3], s[2] * s[3]})
    if (d > std::numeric_limits<int>::max()) throw std::invalid_argument("input transform: plane too large");
  const int8_t* src = x.data<int8_t>();
  const ptrdiff_t plane = ptrdiff_t(s[2] * s[3]);
  const int channels = int(out_shape[1]);
  for (int64_t n = 0; n < s[0]; ++n, src += ptrdiff_t(s[1]) * plane)
    for (int oc = 0; oc < channels; ++oc) {
      const ChannelSource cs = sourceOf(t, oc, int(s[1]));
      write(n, oc, cs, src + cs.c * plane);
    }
}

}  // namespace

namespace {

// The word the runs of a column unfold move in: the host's register width
// (a 32-bit core splits 64-bit moves of unaligned data into byte moves).
using PackWord = std::conditional_t<sizeof(void*) == 8, uint64_t, uint32_t>;
constexpr int kWordBytes = int(sizeof(PackWord));

// n bytes from s to d, a word at a time (memcpy of a constant size compiles
// to one unaligned load and store), the rest one by one: the runs of a
// column unfold are a few dozen bytes, too short for a call to memcpy.
inline void packRun(int8_t* d, const int8_t* s, int n) {
  int i = 0;
  for (; i + kWordBytes <= n; i += kWordBytes) {
    PackWord v;
    std::memcpy(&v, s + i, sizeof v);
    std::memcpy(d + i, &v, sizeof v);
  }
  for (; i < n; ++i) d[i] = s[i];
}

// `count` runs of Words words, from consecutive `step`-byte places of s to
// consecutive `entry`-byte places of d: the loop over one row's entries with
// the run's length known to the compiler, a few instructions per entry.
template <int Words>
void packRuns(int8_t* d, ptrdiff_t entry, const int8_t* s, ptrdiff_t step, int count) {
  for (int k = 0; k < count; ++k, d += entry, s += step) {
    PackWord v[Words];
    std::memcpy(v, s, sizeof v);
    std::memcpy(d, v, sizeof v);
  }
}

// packRuns for any run: a fixed-length loop for runs of one to eight whole
// words, packRun otherwise.
void packRowRuns(int8_t* d, ptrdiff_t entry, const int8_t* s, ptrdiff_t step, int count, int run) {
  switch (run % kWordBytes ? 0 : run / kWordBytes) {
    case 1: return packRuns<1>(d, entry, s, step, count);
    case 2: return packRuns<2>(d, entry, s, step, count);
    case 3: return packRuns<3>(d, entry, s, step, count);
    case 4: return packRuns<4>(d, entry, s, step, count);
    case 5: return packRuns<5>(d, entry, s, step, count);
    case 6: return packRuns<6>(d, entry, s, step, count);
    case 7: return packRuns<7>(d, entry, s, step, count);
    case 8: return packRuns<8>(d, entry, s, step, count);
    default:
      for (int k = 0; k < count; ++k, d += entry, s += step) packRun(d, s, run);
  }
}

}  // namespace

int64_t unfoldCopiedBytes(const Shape& s, const InputTransform& t, int64_t block) {
  if (t.unfold_columns <= 1 || s[1] > block) return 0;
  return s[0] * (s[1] - s[1] / t.unfold_columns) * s[2] * s[3];
}

void packTransformedActivation(const Tensor& x, const InputTransform& t, int64_t batch, int64_t block, int8_t* out) {
  const Shape out_shape = transformedShape(x.shape(), t);
  const PackedGeometry g = packedGeometry(out_shape, batch, block);
  std::memset(out, 0, static_cast<size_t>(g.bytes()));  // channels and batch entries past the tensor
  const ptrdiff_t entry = ptrdiff_t(g.entryBytes());
  const ptrdiff_t block_bytes = ptrdiff_t(g.h * g.w) * entry;                // one channel block
  const ptrdiff_t group_bytes = ptrdiff_t(g.channelBlocks()) * block_bytes;  // one batch group
  const int h = int(x.dim(2)), w = int(x.dim(3)), oh = int(g.h), ow = int(g.w), k_per_block = int(g.block);
  // A column unfold whose channels fit one entry: the first column's C'
  // channels are written pixel-major into a compact plane ([y][x][C']), in
  // which the u*C' channels of entry (y, x) are one run of bytes from
  // pixel (y, x) on; each entry is then one copy of that run.
  const int u = int(t.unfold_columns), per_column = int(out_shape[1]) / u;
  const bool copy_unfold = unfoldCopiedBytes(out_shape, t, block) > 0;
  std::vector<int8_t> compact(copy_unfold ? size_t(oh) * size_t(ow) * size_t(per_column) : 0);
  // The destination of plane (n, oc), kept by counters (n's group and lane,
  // oc's block and lane) rather than divided out per plane.
  int64_t lane_n = 0, last_n = -1;
  int8_t* group = out;
  auto unfoldInto = [&](int8_t* lane0) {
    const int run = u * per_column;
    for (int y = 0; y < oh; ++y) {
      const int8_t* src = compact.data() + ptrdiff_t(y) * ow * per_column;
      int8_t* d = lane0 + ptrdiff_t(y) * ow * entry;
      const int whole = std::max(0, ow - u + 1);
      packRowRuns(d, entry, src, per_column, whole, run);
      d += ptrdiff_t(whole) * entry;
      src += ptrdiff_t(whole) * per_column;
      // The last u-1 entries of the row reach past it: the padding.
      for (int xx = whole; xx < ow; ++xx, d += entry, src += per_column) {
        const int inside = (ow - xx) * per_column;
        packRun(d, src, inside);
        std::memset(d + inside, t.pad_value, size_t(run - inside));
      }
    }
  };
  forEachPlane(x, t, out_shape, [&](int64_t n, int oc, const ChannelSource& cs, const int8_t* in) {
    if (n != last_n) {
      if (copy_unfold && last_n >= 0) unfoldInto(group + ptrdiff_t(lane_n) * k_per_block);
      if (last_n >= 0 && ++lane_n == g.batch) lane_n = 0, group += group_bytes;
      last_n = n;
    }
    if (copy_unfold) {
      if (oc < per_column) writePlane(in, h, w, t, cs, oh, ow, compact.data() + oc, per_column);
      return;
    }
    const int cb = oc / k_per_block, k = oc - cb * k_per_block;
    int8_t* d = group + cb * block_bytes + ptrdiff_t(lane_n) * k_per_block + k;
    writePlane(in, h, w, t, cs, oh, ow, d, entry);
  });
  if (copy_unfold && last_n >= 0) unfoldInto(group + ptrdiff_t(lane_n) * k_per_block);
}

Tensor applyInputTransform(const Tensor& x, const InputTransform& t) {
  const Shape out_shape = transformedShape(x.shape(), t);
  Tensor y(DType::I8, out_shape);
  int8_t* dst = y.data<int8_t>();
  const int64_t plane = out_shape[2] * out_shape[3];
  forEachPlane(x, t, out_shape, [&](int64_t n, int oc, const ChannelSource& cs, const int8_t* in) {
    writePlane(in, int(x.dim(2)), int(x.dim(3)), t, cs, int(out_shape[2]), int(out_shape[3]),
               dst + (n * out_shape[1] + oc) * plane, 1);
  });
  return y;
}

}  // namespace vdla::rt::accel
