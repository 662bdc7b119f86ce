#include "vdla/runtime/qconv_attributes.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vdla::rt {

namespace {

std::string listToString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// A list attribute with exactly `count` values, each >= min_value.
void readList(const AttributeMap& attrs, const char* name, size_t count, int64_t min_value, int64_t* out) {
  if (!attrs.has(name)) return;
  const std::vector<int64_t>& v = attrs.getInts(name);
  if (v.size() != count)
    throw std::invalid_argument(std::string("attribute '") + name + "' needs " + std::to_string(count) +
                                " values, got " + listToString(v));
  for (size_t i = 0; i < count; ++i) {
    if (v[i] < min_value)
      throw std::invalid_argument(std::string("attribute '") + name +
                                  "' values must be >= " + std::to_string(min_value) + ", got " + listToString(v));
    out[i] = v[i];
  }
}

int64_t readRequired(const AttributeMap& attrs, const char* name) {
  if (!attrs.has(name)) throw std::invalid_argument(std::string("attribute '") + name + "' is required");
  return attrs.getInt(name);
}

void checkRange(const char* name, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    throw std::invalid_argument(std::string("attribute '") + name + "' must be in [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "], got " + std::to_string(v));
}

}  // namespace

QConvAttributes readQConvAttributes(const AttributeMap& attrs) {
  QConvAttributes q;
  if (attrs.has("auto_pad") && attrs.getString("auto_pad") != "NOTSET")
    throw std::invalid_argument("attribute 'auto_pad' is not supported: give explicit 'pads'");
  readList(attrs, "strides", 2, 1, q.stride);
  readList(attrs, "pads", 4, 0, q.pads);
  readList(attrs, "dilations", 2, 1, q.dilation);
  q.group = attrs.getInt("group", 1);
  if (q.group < 1) throw std::invalid_argument("attribute 'group' must be >= 1, got " + std::to_string(q.group));
  const int64_t shift1 = readRequired(attrs, "shift1"), shift2 = readRequired(attrs, "shift2");
  const int64_t wide = attrs.getInt("wide_product", 0);
  checkRange("wide_product", wide, 0, 1);
  checkRange("shift1", shift1, 0, 31);
  checkRange("shift2", shift2, 0, wide ? 62 : 31);
  const int64_t residual_shift = attrs.getInt("residual_shift", 0);
  checkRange("residual_shift", residual_shift, 0, wide ? 62 : 0);
  const int64_t lo = readRequired(attrs, "clip_lo"), hi = readRequired(attrs, "clip_hi");
  checkRange("clip_lo", lo, -128, 127);
  checkRange("clip_hi", hi, -128, 127);
  if (lo > hi)
    throw std::invalid_argument("attribute 'clip_lo' " + std::to_string(lo) + " is greater than 'clip_hi' " +
                                std::to_string(hi));
  const int64_t zp = attrs.getInt("x_zero_point", 0);
  checkRange("x_zero_point", zp, -128, 127);
  q.shift1 = static_cast<int>(shift1);
  q.shift2 = static_cast<int>(shift2);
  q.wide_product = wide != 0;
  q.residual_shift = static_cast<int>(residual_shift);
  q.clip_lo = static_cast<int32_t>(lo);
  q.clip_hi = static_cast<int32_t>(hi);
  q.x_zero_point = static_cast<int32_t>(zp);
  const int64_t float_requant = attrs.getInt("float_requant", 0);
  checkRange("float_requant", float_requant, 0, 1);
  const int64_t y_zp = attrs.getInt("y_zero_point", 0);
  checkRange("y_zero_point", y_zp, -128, 127);
  if (!float_requant && y_zp != 0)
    throw std::invalid_argument(
        "attribute 'y_zero_point' needs float_requant = 1 (the integer forms put it in a bias)");
  if (float_requant && (shift1 != 0 || shift2 != 0 || wide || residual_shift != 0))
    throw std::invalid_argument(
        "attribute 'float_requant' = 1 needs shift1 = shift2 = 0, wide_product = 0 and residual_shift = 0");
  q.float_requant = float_requant != 0;
  q.y_zero_point = static_cast<int32_t>(y_zp);
  const int64_t post_add = attrs.getInt("post_add", 0);
  checkRange("post_add", post_add, 0, 1);
  if (post_add) {
    if (residual_shift != 0) throw std::invalid_argument("attribute 'post_add' = 1 needs residual_shift = 0");
    const int64_t y_mult = readRequired(attrs, "add_y_mult"), offset = readRequired(attrs, "add_offset");
    const int64_t add_shift = readRequired(attrs, "add_shift");
    checkRange("add_y_mult", y_mult, INT32_MIN, INT32_MAX);
    checkRange("add_offset", offset, INT32_MIN, INT32_MAX);
    checkRange("add_shift", add_shift, 0, 31);
    q.post_add = true;
    q.add_y_mult = static_cast<int32_t>(y_mult);
    q.add_offset = static_cast<int32_t>(offset);
    q.add_shift = static_cast<int>(add_shift);
  } else if (attrs.has("add_y_mult") || attrs.has("add_offset") || attrs.has("add_shift")) {
    throw std::invalid_argument("attributes 'add_y_mult', 'add_offset' and 'add_shift' need post_add = 1");
  }
  return q;
}

void writeQConvAttributes(const QConvAttributes& q, AttributeMap& attrs) {
  attrs.set("strides", std::vector<int64_t>{q.stride[0], q.stride[1]});
  attrs.set("pads", std::vector<int64_t>{q.pads[0], q.pads[1], q.pads[2], q.pads[3]});
  attrs.set("dilations", std::vector<int64_t>{q.dilation[0], q.dilation[1]});
  attrs.set("group", q.group);
  attrs.set("shift1", int64_t{q.shift1});
  attrs.set("shift2", int64_t{q.shift2});
  attrs.set("wide_product", int64_t{q.wide_product});
  // Only when used, so that every other layer's attributes stay as they were.
  if (q.residual_shift != 0) attrs.set("residual_shift", int64_t{q.residual_shift});
  attrs.set("clip_lo", int64_t{q.clip_lo});
  attrs.set("clip_hi", int64_t{q.clip_hi});
  attrs.set("x_zero_point", int64_t{q.x_zero_point});
  if (q.float_requant) {
    attrs.set("float_requant", int64_t{1});
    attrs.set("y_zero_point", int64_t{q.y_zero_point});
  }
  if (q.post_add) {
    attrs.set("post_add", int64_t{1});
    attrs.set("add_y_mult", int64_t{q.add_y_mult});
    attrs.set("add_offset", int64_t{q.add_offset});
    attrs.set("add_shift", int64_t{q.add_shift});
  }
}

int64_t qconvOutputSize(int64_t input, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                        int64_t pad_end) {
  const int64_t span = input + pad_begin + pad_end - ((kernel - 1) * dilation + 1);
  if (kernel < 1 || span < 0)
    throw std::invalid_argument("the dilated kernel (" + std::to_string(kernel) + ", dilation " +
                                std::to_string(dilation) + ") does not fit the padded input (" + std::to_string(input) +
                                " + " + std::to_string(pad_begin) + " + " + std::to_string(pad_end) + ")");
  return span / stride + 1;
}

}  // namespace vdla::rt
