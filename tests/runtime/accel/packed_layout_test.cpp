// The host's side of an offloaded layer's input: random transforms (padding
// with a value, im2col, space-to-depth, column unfold) against their definitions restated
// element by element, and transform-and-pack in one pass against the
// transform followed by the packing restated naively, and unpacking back.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "vdla/runtime/accel/packed_layout.h"

namespace vdla::rt::accel {
namespace {

// The padded input at (n, c, py, px), pad_value outside.
int8_t paddedAt(const Tensor& x, const InputTransform& t, int64_t n, int64_t c, int64_t py, int64_t px) {
  const int64_t iy = py - t.pad_top, ix = px - t.pad_left;
  if (iy < 0 || iy >= x.dim(2) || ix < 0 || ix >= x.dim(3)) return t.pad_value;
  return x.data<int8_t>()[((n * x.dim(1) + c) * x.dim(2) + iy) * x.dim(3) + ix];
}

// InputTransform's definition (packed_layout.h), element by element.
Tensor naiveTransform(const Tensor& x, const InputTransform& t) {
  Tensor y(DType::I8, transformedShape(x.shape(), t));
  for (int64_t n = 0; n < y.dim(0); ++n)
    for (int64_t oc = 0; oc < y.dim(1); ++oc)
      for (int64_t oy = 0; oy < y.dim(2); ++oy)
        for (int64_t ox = 0; ox < y.dim(3); ++ox) {
          int8_t v;
          if (t.im2col) {
            const int64_t c = oc / (t.kh * t.kw), ky = (oc / t.kw) % t.kh, kx = oc % t.kw;
            v = paddedAt(x, t, n, c, oy * t.sh + ky, ox * t.sw + kx);
          } else if (t.space_to_depth > 1 || t.unfold_columns > 1) {
            // Channel j*C' + c' is channel c' of the space-to-depth result at (oy, ox + j).
            const int64_t b = t.space_to_depth, per_column = x.dim(1) * b * b;
            const int64_t j = oc / per_column, sc = oc % per_column;
            const int64_t c = sc / (b * b), dy = (sc / b) % b, dx = sc % b;
            v = paddedAt(x, t, n, c, oy * b + dy, (ox + j) * b + dx);
          } else {
            v = paddedAt(x, t, n, oc, oy, ox);
          }
          y.data<int8_t>()[((n * y.dim(1) + oc) * y.dim(2) + oy) * y.dim(3) + ox] = v;
        }
  return y;
}

// [N/B][C/K][H][W][B][K], zeros past the tensor.
std::vector<int8_t> naivePack(const Tensor& x, int64_t batch, int64_t block) {
  const PackedGeometry g = packedGeometry(x.shape(), batch, block);
  std::vector<int8_t> out(size_t(g.bytes()), 0);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t c = 0; c < g.c; ++c)
      for (int64_t p = 0; p < g.h * g.w; ++p)
        out[size_t((((n / batch) * g.channelBlocks() + c / block) * g.h * g.w + p) * g.entryBytes() +
                   (n % batch) * block + c % block)] = x.data<int8_t>()[(n * g.c + c) * g.h * g.w + p];
  return out;
}

InputTransform randomTransform(std::mt19937& rng) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  InputTransform t;
  if (pick(0, 1)) {
    t.pad_top = pick(0, 3);
    t.pad_left = pick(0, 3);
    t.pad_bottom = pick(0, 3);
    t.pad_right = pick(0, 3);
    t.pad_value = static_cast<int8_t>(pick(-128, 127));
  }
  switch (pick(0, 2)) {
    case 0:
      t.im2col = true;
      t.kh = pick(1, 4);
      t.kw = pick(1, 4);
      t.sh = pick(1, 3);
      t.sw = pick(1, 3);
      break;
    case 1:
      t.space_to_depth = pick(1, 3);
      t.unfold_columns = pick(1, 4);
      break;
    default: break;
  }
  return t;
}

TEST(InputTransform, RandomTransformsAndPackingMatchTheirDefinitions) {
  std::mt19937 rng(11);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int checked = 0, unfold_copied = 0;
  for (int k = 0; k < 300; ++k) {
    const InputTransform t = randomTransform(rng);
    Tensor x(DType::I8, {pick(1, 3), pick(1, 5), pick(4, 12), pick(4, 12)});
    for (int64_t i = 0; i < x.numElements(); ++i) x.data<int8_t>()[i] = static_cast<int8_t>(rng());
    const std::string what = "transform " + std::to_string(k) + " of " + shapeToString(x.shape());
    const Tensor want = naiveTransform(x, t);
    const Tensor got = applyInputTransform(x, t);
    ASSERT_EQ(got.shape(), want.shape()) << what;
    for (int64_t i = 0; i < want.numElements(); ++i)
      ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i]) << what << ", element " << i;
    const int64_t batch = pick(1, 2), block = pick(1, 16);
    const std::vector<int8_t> packed = naivePack(want, batch, block);
    std::vector<int8_t> fused(packed.size(), 99);
    packTransformedActivation(x, t, batch, block, fused.data());
    ASSERT_EQ(fused, packed) << what << ", batch " << batch << ", block " << block;
    // (An unfold whose channels fit one entry is packed by copying entries.)
    if (t.unfold_columns > 1 && want.dim(1) <= block) ++unfold_copied;
    Tensor unpacked(DType::I8, want.shape());
    unpackActivation(packed.data(), packedGeometry(want.shape(), batch, block), unpacked);
    ASSERT_EQ(0, std::memcmp(unpacked.raw(), want.raw(), want.byteSize())) << what << ", unpacked";
    if (t.identity()) {
      std::vector<int8_t> plain(packed.size(), 99);
      packActivation(x, packedGeometry(x.shape(), batch, block), plain.data());
      ASSERT_EQ(plain, packed) << what;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 300);
  EXPECT_GE(unfold_copied, 10);
}

}  // namespace
}  // namespace vdla::rt::accel
