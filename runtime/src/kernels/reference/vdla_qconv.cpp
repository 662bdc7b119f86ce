// vdla.QConv (semantics in vdla/runtime/qconv_attributes.h): the CPU golden
// model of every convolution the accelerator runs, so it is exact (wrapping
// 32-bit arithmetic, like the GEMM core and ALU) and fast enough to run whole
// networks.
//
// Each (image, group) is an im2col of the explicitly padded input (padding
// holds x_zero_point) followed by an integer matrix product into 32-bit
// accumulators, then the requantisation sequence per output element.
// Wrapping sums are uint32_t, so that wrapping is defined behaviour;
// converting back to int32_t is modular.
#include <algorithm>
#include <vector>

#include "common.h"
#include "register.h"
#include "vdla/runtime/qconv_attributes.h"

namespace vdla::rt::ref {

namespace {

struct Geometry {
  int64_t batch, channels, height, width;
  int64_t out_channels, kernel_h, kernel_w, out_h, out_w, group;
  int64_t channelsPerGroup() const { return channels / group; }
  int64_t outChannelsPerGroup() const { return out_channels / group; }
  int64_t outPlane() const { return out_h * out_w; }
};

// Two formulations of C[M][P] += A[M][K] * B[K][P] (int8 operands, wrapping
// 32-bit sums), chosen by the depth K of the products:
//
//  * deep products (K >= kDotMinDepth, every layer but depthwise ones): dot
//    products along K, with A and the im2col transposed so that K is
//    contiguous (Bt[p][k]) and both widened to int16. Sums of int16 x int16
//    products into int32 compile to the pairwise multiply-add every SIMD
//    instruction set has (pmaddwd on SSE2); a 4 x 2 block of outputs reuses
//    each load of A twice and of Bt four times, in registers.
//  * shallow products (depthwise 3x3: K = 9): rows of C updated along P,
//    which is long, with one int16 product per element.
//
// Partial sums are int32: each product is at most 2^14 in magnitude, so a
// chunk of kDotChunk products cannot overflow; chunks are added with the
// wrap of the definition (uint32_t).
constexpr int64_t kDotMinDepth = 32;
constexpr int64_t kDotChunk = int64_t{1} << 16;

void gemmDot(int64_t M, int64_t P, int64_t K, const int16_t* A, const int16_t* Bt, uint32_t* C) {
  for (int64_t k0 = 0; k0 < K; k0 += kDotChunk) {
    const int64_t kn = std::min(kDotChunk, K - k0);
    int64_t m = 0;
    for (; m + 4 <= M; m += 4) {
      const int16_t* __restrict__ a0 = A + (m + 0) * K + k0;
      const int16_t* __restrict__ a1 = A + (m + 1) * K + k0;
      const int16_t* __restrict__ a2 = A + (m + 2) * K + k0;
      const int16_t* __restrict__ a3 = A + (m + 3) * K + k0;
      int64_t p = 0;
      for (; p + 2 <= P; p += 2) {
        const int16_t* __restrict__ b0 = Bt + p * K + k0;
        const int16_t* __restrict__ b1 = Bt + (p + 1) * K + k0;
        int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0, s20 = 0, s21 = 0, s30 = 0, s31 = 0;
        for (int64_t k = 0; k < kn; ++k) {
          const int32_t x0 = b0[k], x1 = b1[k];
          s00 += a0[k] * x0;
          s01 += a0[k] * x1;
          s10 += a1[k] * x0;
          s11 += a1[k] * x1;
          s20 += a2[k] * x0;
          s21 += a2[k] * x1;
          s30 += a3[k] * x0;
          s31 += a3[k] * x1;
        }
        const int32_t sums[4][2] = {{s00, s01}, {s10, s11}, {s20, s21}, {s30, s31}};
        for (int r = 0; r < 4; ++r)
          for (int c = 0; c < 2; ++c) C[(m + r) * P + p + c] += static_cast<uint32_t>(sums[r][c]);
      }
      for (; p < P; ++p) {
        const int16_t* __restrict__ b0 = Bt + p * K + k0;
        int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int64_t k = 0; k < kn; ++k) {
          const int32_t x0 = b0[k];
          s0 += a0[k] * x0;
          s1 += a1[k] * x0;
          s2 += a2[k] * x0;
          s3 += a3[k] * x0;
        }
        C[(m + 0) * P + p] += static_cast<uint32_t>(s0);
        C[(m + 1) * P + p] += static_cast<uint32_t>(s1);
        C[(m + 2) * P + p] += static_cast<uint32_t>(s2);
        C[(m + 3) * P + p] += static_cast<uint32_t>(s3);
      }
    }
    for (; m < M; ++m)
      for (int64_t p = 0; p < P; ++p) {
        const int16_t* __restrict__ a0 = A + m * K + k0;
        const int16_t* __restrict__ b0 = Bt + p * K + k0;
        int32_t s = 0;
        for (int64_t k = 0; k < kn; ++k) s += a0[k] * int32_t{b0[k]};
        C[m * P + p] += static_cast<uint32_t>(s);
      }
  }
}

void gemmAxpy(int64_t M, int64_t P, int64_t K, const int8_t* A, const int8_t* B, uint32_t* C) {
  for (int64_t m = 0; m < M; ++m) {
    uint32_t* __restrict__ c = C + m * P;
    for (int64_t k = 0; k < K; ++k) {
      const int8_t* __restrict__ b = B + k * P;
      const int16_t a = A[m * K + k];
      for (int64_t j = 0; j < P; ++j)
        c[j] += static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(a * b[j])));
    }
  }
}

// The group's input channels with the padding made explicit (x_zero_point),
// as int16: [channels][height + pad_top + pad_bottom][width + pad_left + pad_right].
struct PaddedInput {
  std::vector<int16_t> data;
  int64_t rows = 0, cols = 0;
};

void padInput(const int8_t* x, int64_t channels, const Geometry& g, const QConvAttributes& q, PaddedInput* out) {
  out->rows = g.height + q.pads[0] + q.pads[2];
  out->cols = g.width + q.pads[1] + q.pads[3];
  out->data.assign(static_cast<size_t>(channels * out->rows * out->cols), static_cast<int16_t>(q.x_zero_point));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t y = 0; y < g.height; ++y) {
      const int8_t* src = x + (c * g.height + y) * g.width;
      int16_t* dst = out->data.data() + (c * out->rows + y + q.pads[0]) * out->cols + q.pads[1];
      for (int64_t i = 0; i < g.width; ++i) dst[i] = src[i];
    }
}

// Bt[(oy, ox)][(c, ky, kx)]: each output position's receptive field, contiguous.
void patchesByPosition(const PaddedInput& in, int64_t channels, const Geometry& g, const QConvAttributes& q,
                       int16_t* bt) {
  const int64_t sh = q.stride[0], sw = q.stride[1], dh = q.dilation[0], dw = q.dilation[1];
  const int64_t plane = in.rows * in.cols;
  int16_t* dst = bt;
  for (int64_t oy = 0; oy < g.out_h; ++oy)
    for (int64_t ox = 0; ox < g.out_w; ++ox)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t ky = 0; ky < g.kernel_h; ++ky) {
          const int16_t* src = in.data.data() + c * plane + (oy * sh + ky * dh) * in.cols + ox * sw;
          for (int64_t kx = 0; kx < g.kernel_w; ++kx) *dst++ = src[kx * dw];
        }
}

// col[(c, ky, kx)][(oy, ox)] as int8, for the shallow formulation.
void patchesByTap(const PaddedInput& in, int64_t channels, const Geometry& g, const QConvAttributes& q, int8_t* col) {
  const int64_t sh = q.stride[0], sw = q.stride[1], dh = q.dilation[0], dw = q.dilation[1];
  const int64_t plane = in.rows * in.cols;
  int8_t* dst = col;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t ky = 0; ky < g.kernel_h; ++ky)
      for (int64_t kx = 0; kx < g.kernel_w; ++kx)
        for (int64_t oy = 0; oy < g.out_h; ++oy) {
          const int16_t* src = in.data.data() + c * plane + (oy * sh + ky * dh) * in.cols + kx * dw;
          for (int64_t ox = 0; ox < g.out_w; ++ox) *dst++ = static_cast<int8_t>(src[ox * sw]);
        }
}

const int32_t* channelVector(const KernelArgs& a, size_t i, const char* what, int64_t channels) {
  const Tensor& t = a.input(i);
  requireDType(t, DType::I32, what);
  require(t.rank() == 1 && t.dim(0) == channels,
          std::string(what) + " must have shape [" + std::to_string(channels) + "], got " + shapeToString(t.shape()));
  return t.data<int32_t>();
}

void qconv(const KernelArgs& a) {
  if (a.hasInput(7)) {
    // A fused 1x1 expansion (inputs 7-10, attributes expand_*: the
    // accelerator back end's fused pair): the expansion over X, then this
    // layer over its output, exactly as the two layers apart.
    const AttributeMap ea = attributesWithPrefix(a.attributes(), "expand_");
    const QConvAttributes e = readQConvAttributes(ea);
    const Tensor& x = a.input(0);
    const Tensor& we = a.input(7);
    require(x.rank() == 4 && we.rank() == 4, "input X and the expansion's weights must be 4-D");
    Tensor mid(DType::I8, {x.dim(0), we.dim(0),
                           qconvOutputSize(x.dim(2), we.dim(2), e.stride[0], e.dilation[0], e.pads[0], e.pads[2]),
                           qconvOutputSize(x.dim(3), we.dim(3), e.stride[1], e.dilation[1], e.pads[1], e.pads[3])});
    KernelArgs expansion;
    expansion.inputs = {&x, &we, &a.input(8), &a.input(9), &a.input(10)};
    expansion.outputs = {&mid};
    expansion.attrs = &ea;
    qconv(expansion);
    KernelArgs rest = a;
    rest.inputs = {&mid, &a.input(1), &a.input(2), &a.input(3), &a.input(4)};
    qconv(rest);
    return;
  }
  const QConvAttributes q = readQConvAttributes(a.attributes());
  const Tensor& x = a.input(0);
  const Tensor& w = a.input(1);
  requireDType(x, DType::I8, "input X");
  requireDType(w, DType::I8, "weights W");
  require(x.rank() == 4, "input X must be [N, C, H, W], got " + shapeToString(x.shape()));
  require(w.rank() == 4, "weights W must be [O, C/group, KH, KW], got " + shapeToString(w.shape()));
  Geometry g{x.dim(0), x.dim(1), x.dim(2), x.dim(3), w.dim(0), w.dim(2), w.dim(3), 0, 0, q.group};
  require(g.channels == w.dim(1) * g.group && g.out_channels % g.group == 0,
          "channels of input " + shapeToString(x.shape()) + " and weights " + shapeToString(w.shape()) +
              " do not fit group " + std::to_string(g.group));
  g.out_h = qconvOutputSize(g.height, g.kernel_h, q.stride[0], q.dilation[0], q.pads[0], q.pads[2]);
  g.out_w = qconvOutputSize(g.width, g.kernel_w, q.stride[1], q.dilation[1], q.pads[1], q.pads[3]);
  const Shape out_shape = {g.batch, g.out_channels, g.out_h, g.out_w};
  Tensor& y = a.output(0);
  requireDType(y, DType::I8, "output Y");
  requireShape(y, out_shape);

  const int64_t O = g.out_channels;
  const int32_t* bias1 = channelVector(a, 2, "bias1", O);
  const int32_t* mult = channelVector(a, 3, "mult", O);
  const int32_t* bias2 = channelVector(a, 4, "bias2", O);
  const bool residual = a.hasInput(5);
  require(residual == a.hasInput(6), "R and residual_mult must be given together");
  const int8_t* r = nullptr;
  const int32_t* residual_mult = nullptr;
  if (residual) {
    requireDType(a.input(5), DType::I8, "residual R");
    requireShape(a.input(5), out_shape, "residual R");
    r = a.input(5).data<int8_t>();
    residual_mult = channelVector(a, 6, "residual_mult", O);
  }
  if (q.wide_product || q.float_requant)
    for (int64_t o = 0; o < O; ++o)
      require(bias2[o] == 0, q.wide_product ? "wide_product needs bias2 = 0" : "float_requant needs bias2 = 0");
  require(!(q.float_requant && residual && !q.post_add), "float_requant takes no residual R (but post_add's)");
  require(!q.post_add || residual, "post_add needs the residual R and residual_mult");
  // post_add: R joins after the requantisation (postAdd), not in t or u.
  const bool r_in_u = residual && !q.post_add;
  int8_t* yp = y.data<int8_t>();
  auto store = [&](int64_t i, int32_t v, int64_t o) {
    v = std::clamp(v, q.clip_lo, q.clip_hi);
    if (q.post_add) v = postAdd(v, r[i], q.add_y_mult, residual_mult[o], q.add_offset, q.add_shift);
    yp[i] = static_cast<int8_t>(v);
  };

  const int64_t cg = g.channelsPerGroup(), og = g.outChannelsPerGroup(), plane = g.outPlane();
  const int64_t kdim = cg * g.kernel_h * g.kernel_w, in_plane = g.height * g.width;
  const bool deep = kdim >= kDotMinDepth;
  const int8_t* xp = x.data<int8_t>();
  const int8_t* wp = w.data<int8_t>();
  std::vector<int16_t> w16;
  if (deep) w16.assign(wp, wp + w.numElements());
  PaddedInput padded;
  std::vector<int16_t> bt(deep ? static_cast<size_t>(plane * kdim) : 0);
  std::vector<int8_t> col(deep ? 0 : static_cast<size_t>(kdim * plane));
  std::vector<uint32_t> acc(static_cast<size_t>(og * plane));
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t grp = 0; grp < g.group; ++grp) {
      padInput(xp + (n * g.channels + grp * cg) * in_plane, cg, g, q, &padded);
      std::fill(acc.begin(), acc.end(), 0u);
      if (deep) {
        patchesByPosition(padded, cg, g, q, bt.data());
        gemmDot(og, plane, kdim, w16.data() + grp * og * kdim, bt.data(), acc.data());
      } else {
        patchesByTap(padded, cg, g, q, col.data());
        gemmAxpy(og, plane, kdim, wp + grp * og * kdim, col.data(), acc.data());
      }
      for (int64_t m = 0; m < og; ++m) {
        const int64_t o = grp * og + m;
        const int64_t base = (n * O + o) * plane;
        const uint32_t* am = acc.data() + m * plane;
        const uint32_t b1 = static_cast<uint32_t>(bias1[o]), mu = static_cast<uint32_t>(mult[o]);
        const uint32_t b2 = static_cast<uint32_t>(bias2[o]);
        const uint32_t rm = r_in_u ? static_cast<uint32_t>(residual_mult[o]) : 0u;
        if (q.float_requant) {
          for (int64_t p = 0; p < plane; ++p)
            store(base + p, floatRequant(static_cast<int32_t>(am[p] + b1), mult[o], q.y_zero_point), o);
          continue;
        }
        if (q.wide_product) {
          // A residual joins the accumulator (in its units) before the bias.
          for (int64_t p = 0; p < plane; ++p) {
            const uint32_t in_acc = r_in_u ? wideResidual(r[base + p], residual_mult[o], q.residual_shift) : 0u;
            const int32_t t = roundingShiftRight(static_cast<int32_t>(am[p] + in_acc + b1), q.shift1);
            store(base + p, wideRequant(t, mult[o], q.shift2), o);
          }
          continue;
        }
        for (int64_t p = 0; p < plane; ++p) {
          const int32_t t = roundingShiftRight(static_cast<int32_t>(am[p] + b1), q.shift1);
          uint32_t u = static_cast<uint32_t>(t) * mu + b2;
          if (r_in_u) u += static_cast<uint32_t>(static_cast<int32_t>(r[base + p])) * rm;
          store(base + p, roundingShiftRight(static_cast<int32_t>(u), q.shift2), o);
        }
      }
    }
}

}  // namespace

void registerVdla(KernelRegistry& r) { r.add("ref.vdla.QConv", qconv); }

}  // namespace vdla::rt::ref
