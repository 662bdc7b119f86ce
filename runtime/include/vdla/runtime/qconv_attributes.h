// vdla.QConv: the integer convolution the VDLA accelerator executes (GEMM core
// for the products, ALU for the requantisation). The compiler's type
// inference, the CPU reference kernel and the accelerator backend read the
// operator's attributes through this header, so there is one definition of
// what they mean and which values are legal.
//
// Inputs (fixed positions):
//   0 X             i8  [N, C, H, W]
//   1 W             i8  [O, C/group, KH, KW]   constant
//   2 bias1         i32 [O]                    constant
//   3 mult          i32 [O]                    constant
//   4 bias2         i32 [O]                    constant
//   5 R             i8  [N, O, OH, OW]         optional residual
//   6 residual_mult i32 [O]                    constant, present iff R is
// Output Y i8 [N, O, OH, OW] (ONNX Conv output sizes).
//
// With every addition and multiplication wrapping in 32-bit two's complement:
//   acc = sum_{c,ky,kx} W[o,c,ky,kx] * Xpad[n, g*C/group + c, y*sh + ky*dh - pad_top, x*sw + kx*dw - pad_left]
//   t   = rshr(acc + bias1[o], shift1)
//   u   = t * mult[o] + (R ? R[n,o,y,x] * residual_mult[o] : 0) + bias2[o]
//   Y   = clamp(rshr(u, shift2), clip_lo, clip_hi)
// where Xpad holds x_zero_point outside the image and rshr(v, s) is v for
// s = 0, else floor((v + 2^(s-1)) / 2^s) evaluated in 64 bits (round half up).
//
// With wide_product = 1 (bias2 all zero) the product is not wrapped, and a
// residual joins the accumulator in its own units instead of u:
//   t   = rshr(acc + (R ? wrap32(rshr(R[n,o,y,x] * residual_mult[o], residual_shift)) : 0) + bias1[o], shift1)
//   Y   = clamp(wrap32(rshr(t * mult[o], shift2)), clip_lo, clip_hi)
// with t * mult[o], R * residual_mult[o] and their shifts exact in 64 bits,
// shift2 and residual_shift in [0, 62] (residual_shift lets residual_mult
// carry fractional accumulator units: the accelerator scales R with one
// MULSHR). The
// accelerator computes it in one MULSHR, so a deep layer needs no shift1 to
// keep the product within int32, and it loads R straight into the
// accumulator before the GEMM (see compiler/src/quant/requant.cpp).
//
// With float_requant = 1 (onnxruntime's requantisation, for models quantised
// elsewhere) mult[o] holds the bit pattern of a binary32 scale s[o], and
//   Y   = clamp(round_half_even(fl(fl(acc + bias1[o]) * s[o])) + y_zero_point, clip_lo, clip_hi)
// where fl rounds to binary32 (the int32 sum wraps as above). shift1, shift2,
// wide_product and bias2 are zero and there is no residual. The accelerator
// computes it with the ALU op FREQ (extension float_requant, docs/isa.md).
//
// With post_add = 1 the layer is a convolution followed by a quantised
// addition of R (an exact integer form of QLinearAdd, which the compiler
// fuses into the convolution that feeds it): Y0 is the output defined above
// without R (any of the forms; R takes no part in t or u), and
//   Y   = clamp(rshr(Y0 * add_y_mult + R[n,o,y,x] * residual_mult[o] + add_offset, add_shift), -128, 127)
// evaluated in 64 bits. residual_shift is zero. The
// accelerator computes the sum in wrapping 32-bit ALU operations, so it runs
// such a layer only when |add_y_mult|*128 + |residual_mult[o]|*128 +
// |add_offset| + 2^(add_shift-1) stays within int32 (then both agree).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "vdla/runtime/attributes.h"

namespace vdla::rt {

struct QConvAttributes {
  int64_t stride[2] = {1, 1};      // strides (H, W)
  int64_t pads[4] = {0, 0, 0, 0};  // pads: top, left, bottom, right (ONNX order)
  int64_t dilation[2] = {1, 1};    // dilations (H, W)
  int64_t group = 1;
  int shift1 = 0;             // in [0, 31]
  int shift2 = 0;             // in [0, 31]; [0, 62] with wide_product
  bool wide_product = false;  // see above
  int residual_shift = 0;     // in [0, 62]; nonzero only with wide_product
  int32_t clip_lo = -128;     // -128 <= clip_lo <= clip_hi <= 127
  int32_t clip_hi = 127;
  int32_t x_zero_point = 0;    // the int8 value padding positions hold
  bool float_requant = false;  // see above
  int32_t y_zero_point = 0;    // float_requant only: added after the rounding, in [-128, 127]
  bool post_add = false;       // see above: R is added after the requantisation
  int32_t add_y_mult = 0;      // post_add only
  int32_t add_offset = 0;      // post_add only
  int add_shift = 0;           // post_add only, in [0, 31]
};

// Reads the attributes of a vdla.QConv node. strides, pads, dilations, group,
// wide_product and x_zero_point have the defaults above; shift1, shift2, clip_lo and
// clip_hi are required. Throws std::invalid_argument naming the attribute for
// a missing or out-of-range value.
QConvAttributes readQConvAttributes(const AttributeMap& attrs);

// Writes every attribute (defaults included), as the quantisation pass emits them.
void writeQConvAttributes(const QConvAttributes& q, AttributeMap& attrs);

// Output size of one spatial dimension (ONNX Conv rule); throws
// std::invalid_argument when the dilated kernel does not fit the padded input.
int64_t qconvOutputSize(int64_t input, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                        int64_t pad_end);

// rshr: round-half-up arithmetic shift right, exact in 64 bits. For shift in
// [1, 31] the result always fits int32.
inline int32_t roundingShiftRight(int32_t v, int shift) {
  if (shift == 0) return v;
  const int64_t rounded = (static_cast<int64_t>(v) + (int64_t{1} << (shift - 1))) >> shift;  // >> floors
  return static_cast<int32_t>(rounded);
}

// The float form's requantisation of one accumulator (bias1 already added):
// binary32 arithmetic, rounded half to even (nearbyint in the default
// rounding mode), as onnxruntime computes it.
inline int32_t floatRequant(int32_t t, int32_t scale_bits, int32_t y_zero_point) {
  float scale = 0;
  static_assert(sizeof scale == sizeof scale_bits);
  std::memcpy(&scale, &scale_bits, sizeof scale);
  const float product = static_cast<float>(t) * scale;
  const float q = std::nearbyint(std::fmax(-65536.0f, std::fmin(65536.0f, product)));
  const int32_t y = static_cast<int32_t>(q) + y_zero_point;
  return y < -128 ? -128 : (y > 127 ? 127 : y);
}

// The post_add form's addition of Y0 (the requantised convolution) and R.
inline int32_t postAdd(int32_t y0, int32_t r, int32_t y_mult, int32_t r_mult, int32_t offset, int shift) {
  const int64_t v = int64_t{y0} * y_mult + int64_t{r} * r_mult + offset;
  const int64_t rounded = shift == 0 ? v : (v + (int64_t{1} << (shift - 1))) >> shift;
  return rounded < -128 ? -128 : (rounded > 127 ? 127 : static_cast<int32_t>(rounded));
}

// The wide form's residual in accumulator units: wrap32(rshr(r * rm, shift)).
inline uint32_t wideResidual(int32_t r, int32_t rm, int shift) {
  const int64_t p = static_cast<int64_t>(r) * rm;
  const int64_t rounded = shift == 0 ? p : (p + (int64_t{1} << (shift - 1))) >> shift;
  return static_cast<uint32_t>(static_cast<uint64_t>(rounded));
}

// The wide form's requantisation of one accumulator (t already shifted).
inline int32_t wideRequant(int32_t t, int32_t mult, int shift2) {
  const int64_t p = static_cast<int64_t>(t) * mult;  // |p| < 2^62
  const int64_t rounded = shift2 == 0 ? p : (p + (int64_t{1} << (shift2 - 1))) >> shift2;
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(rounded)));
}

}  // namespace vdla::rt
