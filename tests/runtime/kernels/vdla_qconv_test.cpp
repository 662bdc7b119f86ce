// vdla.QConv against the operator's definition written out directly: one
// output element at a time, explicit padding checks, 64-bit arithmetic with
// the 32-bit wrap applied where the definition wraps, and rounding shifts
// computed by floor division rather than by shifting.
#include <algorithm>
#include <cstdint>

#include "kernel_test_util.h"

namespace vdla::rt::testing {
namespace {

int64_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

// rshr(v, s) = floor((v + 2^(s-1)) / 2^s), v for s = 0.
int64_t roundShift(int64_t v, int s) { return s == 0 ? v : floorDiv(v + (int64_t{1} << (s - 1)), int64_t{1} << s); }

struct QConvCase {
  Shape x_shape, w_shape;
  int64_t group = 1;
  Ints strides{1, 1}, dilations{1, 1}, pads{0, 0, 0, 0};
  int shift1 = 0, shift2 = 0;
  int64_t clip_lo = -128, clip_hi = 127, x_zero_point = 0;
  bool residual = false;
  bool wide_product = false;
  bool post_add = false;  // R joins after the requantisation (residual_mult multiplies it)
  int64_t add_y_mult = 0, add_offset = 0, add_shift = 0;
  Tensor x, w, bias1, mult, bias2, r, residual_mult;

  AttributeMap attrs() const {
    AttributeMap a = baseAttrs();
    if (post_add) {
      a.set("post_add", int64_t{1});
      a.set("add_y_mult", add_y_mult);
      a.set("add_offset", add_offset);
      a.set("add_shift", add_shift);
    }
    return a;
  }
  AttributeMap baseAttrs() const {
    return makeAttrs({{"strides", strides},
                      {"wide_product", int64_t{wide_product}},
                      {"dilations", dilations},
                      {"pads", pads},
                      {"group", group},
                      {"shift1", int64_t{shift1}},
                      {"shift2", int64_t{shift2}},
                      {"clip_lo", clip_lo},
                      {"clip_hi", clip_hi},
                      {"x_zero_point", x_zero_point}});
  }
  Shape outShape() const {
    const int64_t oh = (x_shape[2] + pads[0] + pads[2] - ((w_shape[2] - 1) * dilations[0] + 1)) / strides[0] + 1;
    const int64_t ow = (x_shape[3] + pads[1] + pads[3] - ((w_shape[3] - 1) * dilations[1] + 1)) / strides[1] + 1;
    return {x_shape[0], w_shape[0], oh, ow};
  }
};

std::vector<int8_t> directQConv(const QConvCase& c) {
  const Shape out = c.outShape();
  const int64_t N = out[0], O = out[1], OH = out[2], OW = out[3];
  const int64_t C = c.x_shape[1], H = c.x_shape[2], W = c.x_shape[3];
  const int64_t Cg = c.w_shape[1], KH = c.w_shape[2], KW = c.w_shape[3], Og = O / c.group;
  const int8_t* x = c.x.data<int8_t>();
  const int8_t* w = c.w.data<int8_t>();
  std::vector<int8_t> y;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          const int64_t g = o / Og;
          int64_t acc = 0;
          for (int64_t ci = 0; ci < Cg; ++ci)
            for (int64_t ky = 0; ky < KH; ++ky)
              for (int64_t kx = 0; kx < KW; ++kx) {
                const int64_t iy = oy * c.strides[0] + ky * c.dilations[0] - c.pads[0];
                const int64_t ix = ox * c.strides[1] + kx * c.dilations[1] - c.pads[1];
                const bool inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
                const int64_t xv = inside ? x[((n * C + g * Cg + ci) * H + iy) * W + ix] : c.x_zero_point;
                acc += w[((o * Cg + ci) * KH + ky) * KW + kx] * xv;
              }
          acc = wrap32(acc);
          const int64_t rv = c.residual ? c.r.data<int8_t>()[((n * O + o) * OH + oy) * OW + ox] : 0;
          const bool r_in_conv = c.residual && !c.post_add;
          // post_add: the requantised output and R, as a quantised addition.
          auto emit = [&](int64_t v) {
            v = std::min(std::max(v, c.clip_lo), c.clip_hi);
            if (c.post_add)
              v = std::min<int64_t>(
                  127, std::max<int64_t>(
                           -128, roundShift(v * c.add_y_mult + rv * c.residual_mult.data<int32_t>()[o] + c.add_offset,
                                            static_cast<int>(c.add_shift))));
            y.push_back(static_cast<int8_t>(v));
          };
          if (c.wide_product) {
            // The residual in accumulator units; the product exact, then wrapped.
            const int64_t in_acc = r_in_conv ? wrap32(rv * c.residual_mult.data<int32_t>()[o]) : 0;
            const int64_t t = roundShift(wrap32(wrap32(acc + in_acc) + c.bias1.data<int32_t>()[o]), c.shift1);
            emit(wrap32(roundShift(t * c.mult.data<int32_t>()[o], c.shift2)));
            continue;
          }
          const int64_t t = roundShift(wrap32(acc + c.bias1.data<int32_t>()[o]), c.shift1);
          int64_t u = t * c.mult.data<int32_t>()[o] + c.bias2.data<int32_t>()[o];
          if (r_in_conv) u += rv * c.residual_mult.data<int32_t>()[o];
          emit(roundShift(wrap32(u), c.shift2));
        }
  return y;
}

Tensor runQConv(const QConvCase& c) {
  return run1("vdla.QConv", {c.x, c.w, c.bias1, c.mult, c.bias2, c.r, c.residual_mult}, DType::I8, c.outShape(),
              c.attrs());
}

Tensor int32Vector(int64_t n, std::mt19937& rng, int64_t lo, int64_t hi) {
  Tensor t(DType::I32, {n});
  std::uniform_int_distribution<int64_t> d(lo, hi);
  for (int64_t i = 0; i < n; ++i) t.data<int32_t>()[i] = static_cast<int32_t>(d(rng));
  return t;
}

// A random convolution. With realistic parameters the shifts and multipliers
// bring typical outputs into the int8 range (so that a wrong accumulator shows
// up as a wrong value, not as saturation); otherwise every parameter is drawn
// from the whole int32 range and the arithmetic wraps.
QConvCase randomCase(std::mt19937& rng, bool realistic) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  QConvCase c;
  const int64_t kind = pick(0, 3);  // 0, 1: grouped or plain; 2: depthwise; 3: 1x1 stride 1
  const int64_t group = kind == 0 ? pick(2, 3) : 1;
  int64_t cin = group * pick(1, 5), cout = group * pick(1, 6);
  if (kind == 2) {
    cin = pick(2, 9);
    cout = cin;
    c.group = cin;
  } else {
    c.group = group;
  }
  const int64_t kh = kind == 3 ? 1 : pick(1, 4), kw = kind == 3 ? 1 : pick(1, 4);
  if (kind != 3) {
    c.strides = {pick(1, 3), pick(1, 3)};
    c.dilations = {pick(1, 2), pick(1, 2)};
    c.pads = {pick(0, 2), pick(0, 2), pick(0, 2), pick(0, 2)};
  }
  const int64_t h = (kh - 1) * c.dilations[0] + 1 + pick(0, 9), w = (kw - 1) * c.dilations[1] + 1 + pick(0, 9);
  c.x_shape = {pick(1, 2), cin, h, w};
  c.w_shape = {cout, cin / c.group, kh, kw};
  c.x = randomInt<int8_t>(c.x_shape, rng, -128, 127);
  c.w = randomInt<int8_t>(c.w_shape, rng, -128, 127);
  c.x_zero_point = pick(0, 1) ? pick(-128, 127) : 0;
  c.residual = pick(0, 1) == 1;
  const int64_t lo = pick(-128, 127), hi = pick(-128, 127);
  c.clip_lo = std::min(lo, hi);
  c.clip_hi = std::max(lo, hi);
  if (pick(0, 2) == 0) {
    c.clip_lo = -128;
    c.clip_hi = 127;
  }
  if (realistic) {
    // |acc| is about 74^2 * sqrt(K) for uniform int8 operands.
    const double acc = 74.0 * 74.0 * std::sqrt(static_cast<double>(c.w_shape[1] * kh * kw));
    c.shift1 = static_cast<int>(pick(0, 8));
    c.bias1 = int32Vector(cout, rng, -static_cast<int64_t>(acc), static_cast<int64_t>(acc));
    c.mult = int32Vector(cout, rng, 1, 1 << 12);
    const double t = acc / std::ldexp(1.0, c.shift1) * (1 << 11);  // typical |t * mult|
    c.shift2 = static_cast<int>(std::clamp<int64_t>(std::lround(std::log2(t / 64.0)), 0, 31));
    c.bias2 = int32Vector(cout, rng, -(int64_t{1} << (c.shift2 + 5)), int64_t{1} << (c.shift2 + 5));
    if (c.residual) c.residual_mult = int32Vector(cout, rng, 0, int64_t{1} << c.shift2);
  } else {
    c.shift1 = static_cast<int>(pick(0, 31));
    c.shift2 = static_cast<int>(pick(0, 31));
    c.bias1 = int32Vector(cout, rng, INT32_MIN, INT32_MAX);
    c.mult = int32Vector(cout, rng, INT32_MIN, INT32_MAX);
    c.bias2 = int32Vector(cout, rng, INT32_MIN, INT32_MAX);
    if (c.residual) c.residual_mult = int32Vector(cout, rng, INT32_MIN, INT32_MAX);
  }
  if (c.residual) c.r = randomInt<int8_t>(c.outShape(), rng, -128, 127);
  if (pick(0, 3) == 0) {
    // The wide form: a residual in accumulator units, a 64-bit product.
    c.wide_product = true;
    c.bias2 = int32Vector(cout, rng, 0, 0);
    if (realistic) {
      c.shift1 = 0;
      // y = t * mult / 2^shift2 up to about 128 for a typical |acc|.
      const double acc = 74.0 * 74.0 * std::sqrt(static_cast<double>(c.w_shape[1] * kh * kw));
      c.shift2 = static_cast<int>(pick(16, 40));
      c.mult = int32Vector(cout, rng, 1, static_cast<int64_t>(std::ldexp(128.0, c.shift2) / acc) + 1);
      if (c.residual) c.residual_mult = int32Vector(cout, rng, -512, 512);
    } else {
      c.shift2 = static_cast<int>(pick(0, 62));
    }
  }
  return c;
}

std::string describe(const QConvCase& c) {
  return "x " + shapeToString(c.x_shape) + " w " + shapeToString(c.w_shape) + " group " + std::to_string(c.group) +
         " strides " + shapeToString(c.strides) + " dilations " + shapeToString(c.dilations) + " pads " +
         shapeToString(c.pads) + " shifts " + std::to_string(c.shift1) + "," + std::to_string(c.shift2) + " clip [" +
         std::to_string(c.clip_lo) + "," + std::to_string(c.clip_hi) + "] zp " + std::to_string(c.x_zero_point) +
         (c.residual ? " residual" : "");
}

TEST(VdlaQConvKernel, MatchesDirectDefinitionOnRandomCases) {
  std::mt19937 rng(1234);
  int64_t unsaturated = 0, total = 0;
  for (int i = 0; i < 300; ++i) {
    const bool realistic = i % 4 != 3;
    QConvCase c = randomCase(rng, realistic);
    SCOPED_TRACE(describe(c));
    const std::vector<int8_t> want = directQConv(c);
    const Tensor y = runQConv(c);
    ASSERT_EQ(y.shape(), c.outShape());
    ASSERT_EQ(y.toVector<int8_t>(), want);
    if (realistic)
      for (int8_t v : want) {
        unsaturated += v > c.clip_lo && v < c.clip_hi;
        ++total;
      }
  }
  // The realistic cases must exercise the arithmetic, not only the clamp.
  EXPECT_GT(unsaturated, total / 3) << unsaturated << " of " << total;
}

// post_add: a quantised addition of R after the requantisation (the form the
// compiler fuses a QLinearAdd into), with the multipliers of a real one
// (MobileNetV2's: about 2^22 at shift 23) and random ones.
TEST(VdlaQConvKernel, PostAddJoinsAfterTheRequantisation) {
  std::mt19937 rng(77);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int64_t inside = 0, total = 0;
  for (int i = 0; i < 200; ++i) {
    QConvCase c = randomCase(rng, true);
    c.residual = true;
    c.post_add = true;
    c.add_shift = pick(0, 23);
    const int64_t unit = int64_t{1} << c.add_shift;
    c.add_y_mult = pick(-unit, unit);
    c.residual_mult = int32Vector(c.w_shape[0], rng, -unit, unit);
    c.add_offset = pick(-64 * unit, 64 * unit);
    c.r = randomInt<int8_t>(c.outShape(), rng, -128, 127);
    SCOPED_TRACE(describe(c) + " add " + std::to_string(c.add_y_mult) + "," + std::to_string(c.add_offset) + ">>" +
                 std::to_string(c.add_shift));
    const std::vector<int8_t> want = directQConv(c);
    ASSERT_EQ(runQConv(c).toVector<int8_t>(), want);
    for (int8_t v : want) {
      inside += v > -128 && v < 127;
      ++total;
    }
  }
  EXPECT_GT(inside, total / 4) << inside << " of " << total;
}

TEST(VdlaQConvKernel, LargeLayerMatchesDirectDefinition) {
  // Enough channels and positions to cross the matrix product's blocking.
  std::mt19937 rng(99);
  QConvCase c;
  c.x_shape = {1, 40, 19, 23};
  c.w_shape = {9, 40, 3, 3};
  c.pads = {1, 1, 1, 1};
  c.x = randomInt<int8_t>(c.x_shape, rng, -128, 127);
  c.w = randomInt<int8_t>(c.w_shape, rng, -128, 127);
  c.shift1 = 3;
  c.shift2 = 14;
  c.bias1 = int32Vector(9, rng, -100000, 100000);
  c.mult = int32Vector(9, rng, 1000, 4000);
  c.bias2 = int32Vector(9, rng, -100000, 100000);
  EXPECT_EQ(runQConv(c).toVector<int8_t>(), directQConv(c));
}

TEST(VdlaQConvKernel, RoundsHalfUpAndClamps) {
  // One 1x1 channel: acc = 2 * x. shift1 = 2 rounds (acc + 1) / 4 half up.
  QConvCase c;
  c.x_shape = {1, 1, 1, 6};
  c.w_shape = {1, 1, 1, 1};
  c.x = Tensor::fromVector<int8_t>(c.x_shape, {-5, -3, -1, 1, 3, 127});
  c.w = Tensor::fromVector<int8_t>(c.w_shape, {2});
  c.bias1 = Tensor::fromVector<int32_t>({1}, {1});
  c.mult = Tensor::fromVector<int32_t>({1}, {3});
  c.bias2 = Tensor::fromVector<int32_t>({1}, {0});
  c.shift1 = 2;
  c.clip_lo = -2;
  c.clip_hi = 50;
  // acc + 1 = -9, -5, -1, 3, 7, 255; rshr by 2: floor((v + 2) / 4) = -2, -1, 0, 1, 2, 64; times 3; clamp.
  EXPECT_EQ(runQConv(c).toVector<int8_t>(), (std::vector<int8_t>{-2, -2, 0, 3, 6, 50}));
  // shift2 = 1 on u = 3 * t: -6, -3, 0, 3, 6, 192 -> floor((u + 1) / 2) = -3, -1, 0, 2, 3, 96.
  c.shift2 = 1;
  c.clip_lo = -128;
  c.clip_hi = 127;
  EXPECT_EQ(runQConv(c).toVector<int8_t>(), (std::vector<int8_t>{-3, -1, 0, 2, 3, 96}));
}

TEST(VdlaQConvKernel, PaddingHoldsTheZeroPoint) {
  // A 3x3 all-ones kernel over a 1x1 image padded by 1: the centre plus eight
  // padding taps of x_zero_point.
  QConvCase c;
  c.x_shape = {1, 1, 1, 1};
  c.w_shape = {1, 1, 3, 3};
  c.pads = {1, 1, 1, 1};
  c.x = Tensor::fromVector<int8_t>(c.x_shape, {10});
  c.w = Tensor::fromVector<int8_t>(c.w_shape, std::vector<int8_t>(9, 1));
  c.bias1 = Tensor::fromVector<int32_t>({1}, {0});
  c.mult = Tensor::fromVector<int32_t>({1}, {1});
  c.bias2 = Tensor::fromVector<int32_t>({1}, {0});
  c.x_zero_point = -3;
  EXPECT_EQ(runQConv(c).toVector<int8_t>(), (std::vector<int8_t>{10 - 24}));
}

TEST(VdlaQConvKernel, AccumulatorWrapsInThirtyTwoBits) {
  // 131072 products of (-128) * (-128) = 2^31 wraps to INT32_MIN; then
  // rshr by 31 gives -1 exactly.
  QConvCase c;
  c.x_shape = {1, 131072, 1, 1};
  c.w_shape = {1, 131072, 1, 1};
  c.x = Tensor::fromVector<int8_t>(c.x_shape, std::vector<int8_t>(131072, -128));
  c.w = Tensor::fromVector<int8_t>(c.w_shape, std::vector<int8_t>(131072, -128));
  c.bias1 = Tensor::fromVector<int32_t>({1}, {0});
  c.mult = Tensor::fromVector<int32_t>({1}, {1});
  c.bias2 = Tensor::fromVector<int32_t>({1}, {0});
  c.shift1 = 31;
  EXPECT_EQ(runQConv(c).toVector<int8_t>(), (std::vector<int8_t>{-1}));
  EXPECT_EQ(directQConv(c), (std::vector<int8_t>{-1}));
}

TEST(VdlaQConvKernel, WideProductShiftsTheExactProduct) {
  // One 1x1 channel, acc = x. t * mult reaches 100 * 2^24 ~ 2^30.6 and
  // -128 * 2^24 = -2^31; the 32-bit product would wrap for larger ones, the
  // wide form does not: 127 * (2^25 - 1) >> 40 rounds to 0, and so on.
  QConvCase c;
  c.x_shape = {1, 1, 1, 5};
  c.w_shape = {1, 1, 1, 1};
  c.x = Tensor::fromVector<int8_t>(c.x_shape, {127, -128, 100, 3, -3});
  c.w = Tensor::fromVector<int8_t>(c.w_shape, {1});
  c.bias1 = Tensor::fromVector<int32_t>({1}, {0});
  c.mult = Tensor::fromVector<int32_t>({1}, {(1 << 25) - 1});
  c.bias2 = Tensor::fromVector<int32_t>({1}, {0});
  c.wide_product = true;
  c.shift2 = 20;  // y = round(x * (2^25 - 1) / 2^20) ~ 32 x, clamped
  EXPECT_EQ(runQConv(c).toVector<int8_t>(), (std::vector<int8_t>{127, -128, 127, 96, -96}));
  c.shift2 = 62;  // the largest shift: everything rounds to 0
  EXPECT_EQ(runQConv(c).toVector<int8_t>(), (std::vector<int8_t>{0, 0, 0, 0, 0}));
  c.shift2 = 25;  // x * (2^25 - 1) / 2^25 rounds half up to x
  EXPECT_EQ(runQConv(c).toVector<int8_t>(), (std::vector<int8_t>{127, -128, 100, 3, -3}));
  // A shift beyond 31 is out of range without wide_product, and 63 with it.
  c.shift2 = 40;
  EXPECT_EQ(runQConv(c).toVector<int8_t>(), (std::vector<int8_t>{0, 0, 0, 0, 0}));
  c.wide_product = false;
  EXPECT_THROW(runQConv(c), std::exception);
  c.wide_product = true;
  c.shift2 = 63;
  EXPECT_THROW(runQConv(c), std::exception);
  // A residual joins the accumulator: x + 2 * r, times 32.
  c.shift2 = 20;
  c.residual = true;
  c.r = Tensor::fromVector<int8_t>({1, 1, 1, 5}, {-100, 100, -3, 1, 2});
  c.residual_mult = Tensor::fromVector<int32_t>({1}, {2});
  EXPECT_EQ(runQConv(c).toVector<int8_t>(), (std::vector<int8_t>{-128, 127, 127, 127, 32}));
  EXPECT_EQ(directQConv(c), runQConv(c).toVector<int8_t>());
  // No bias2.
  c.bias2 = Tensor::fromVector<int32_t>({1}, {5});
  EXPECT_THROW(runQConv(c), std::exception);
}

TEST(VdlaQConvKernel, Errors) {
  std::mt19937 rng(5);
  QConvCase c = randomCase(rng, true);
  c.residual = false;
  c.r = Tensor();
  c.residual_mult = Tensor();
  auto error = [&](std::vector<Tensor> inputs, AttributeMap attrs) -> std::string {
    try {
      run1("vdla.QConv", inputs, DType::I8, c.outShape(), attrs);
    } catch (const KernelError& e) {
      return e.what();
    }
    return "";
  };
  const AttributeMap attrs = c.attrs();
  EXPECT_NE(error({c.x, c.w, c.bias1, c.mult, c.bias2, Tensor(), c.mult}, attrs).find("given together"),
            std::string::npos);
  Tensor short_mult = Tensor::fromVector<int32_t>({1}, {1});
  if (c.w_shape[0] != 1) {
    EXPECT_NE(error({c.x, c.w, c.bias1, short_mult, c.bias2}, attrs).find("mult must have shape"), std::string::npos);
  }
  AttributeMap bad = attrs;
  bad.set("shift2", int64_t{32});
  EXPECT_NE(error({c.x, c.w, c.bias1, c.mult, c.bias2}, bad).find("'shift2' must be in [0, 31]"), std::string::npos);
  bad = attrs;
  bad.erase("clip_lo");
  EXPECT_NE(error({c.x, c.w, c.bias1, c.mult, c.bias2}, bad).find("'clip_lo' is required"), std::string::npos);
  bad = attrs;
  bad.set("post_add", int64_t{1});
  bad.set("add_y_mult", int64_t{1});
  bad.set("add_offset", int64_t{0});
  bad.set("add_shift", int64_t{0});
  EXPECT_NE(error({c.x, c.w, c.bias1, c.mult, c.bias2}, bad).find("post_add needs the residual"), std::string::npos);
  bad = attrs;
  bad.set("add_shift", int64_t{3});
  EXPECT_NE(error({c.x, c.w, c.bias1, c.mult, c.bias2}, bad).find("need post_add = 1"), std::string::npos);
  Tensor xf(DType::F32, c.x_shape);
  EXPECT_NE(error({xf, c.w, c.bias1, c.mult, c.bias2}, attrs).find("input X"), std::string::npos);
}

}  // namespace
}  // namespace vdla::rt::testing
