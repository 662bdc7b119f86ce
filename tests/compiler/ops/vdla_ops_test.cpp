// Type inference of vdla.QConv: output shapes and every error for bad inputs
// and attributes.
#include "op_test_util.h"

namespace vdla::ir::testing {
namespace {

TensorType i8(Shape s) { return tt(DType::I8, std::move(s)); }

In weights(Shape s) { return In::constant(Tensor(DType::I8, std::move(s))); }
In channels(int64_t n) { return In::constant(Tensor(DType::I32, {n})); }

AttributeMap qattrs(std::initializer_list<std::pair<const char*, rt::Attribute>> extra = {}) {
  AttributeMap a = makeAttrs(
      {{"shift1", int64_t{0}}, {"shift2", int64_t{8}}, {"clip_lo", int64_t{-128}}, {"clip_hi", int64_t{127}}});
  for (const auto& [k, v] : extra) a.set(k, v);
  return a;
}

TensorType inferQ(const std::vector<In>& inputs, AttributeMap attrs) {
  return infer1("QConv", inputs, std::move(attrs), "vdla");
}
std::string errorQ(const std::vector<In>& inputs, AttributeMap attrs) {
  return inferError("QConv", inputs, std::move(attrs), 1, "vdla");
}

TEST(VdlaQConvShape, OutputShapes) {
  // ResNet stem: 7x7 stride 2 pad 3, 224 -> 112.
  EXPECT_EQ(inferQ({i8({1, 3, 224, 224}), weights({64, 3, 7, 7}), channels(64), channels(64), channels(64)},
                   qattrs({{"strides", Ints{2, 2}}, {"pads", Ints{3, 3, 3, 3}}})),
            i8({1, 64, 112, 112}));
  // Asymmetric pads and dilation: H (10 + 1 + 2 - 5) / 2 + 1 = 5, W (9 - 3) / 1 + 1 = 7.
  EXPECT_EQ(inferQ({i8({2, 4, 10, 9}), weights({8, 4, 3, 3}), channels(8), channels(8), channels(8)},
                   qattrs({{"pads", Ints{1, 0, 2, 0}}, {"strides", Ints{2, 1}}, {"dilations", Ints{2, 1}}})),
            i8({2, 8, 5, 7}));
  // Depthwise with a residual.
  EXPECT_EQ(inferQ({i8({1, 32, 8, 8}), weights({32, 1, 3, 3}), channels(32), channels(32), channels(32),
                    i8({1, 32, 8, 8}), channels(32)},
                   qattrs({{"group", int64_t{32}}, {"pads", Ints{1, 1, 1, 1}}, {"x_zero_point", int64_t{-7}}})),
            i8({1, 32, 8, 8}));
}

TEST(VdlaQConvShape, InputErrors) {
  const std::vector<In> ok = {i8({1, 8, 5, 5}), weights({6, 8, 3, 3}), channels(6), channels(6), channels(6)};
  auto with = [&](size_t i, In in) {
    std::vector<In> v = ok;
    if (i >= v.size()) v.resize(i + 1);
    v[i] = std::move(in);
    return v;
  };
  EXPECT_INFER_ERROR(errorQ(with(0, f32({1, 8, 5, 5})), qattrs()),
                     "node 'n0' (vdla.QConv): input X must be i8, got f32");
  EXPECT_INFER_ERROR(errorQ(with(0, i8({1, 8, 5})), qattrs()), "input X must be [N, C, H, W]");
  EXPECT_INFER_ERROR(errorQ(with(1, In(i8({6, 8, 3, 3}))), qattrs()), "weights W must be a constant");
  EXPECT_INFER_ERROR(errorQ(with(1, In::constant(Tensor(DType::U8, {6, 8, 3, 3}))), qattrs()),
                     "weights W must be i8, got u8");
  EXPECT_INFER_ERROR(errorQ(with(1, weights({6, 4, 3, 3})), qattrs()),
                     "input channels 8 do not match W's 4 channels per group x group 1");
  EXPECT_INFER_ERROR(errorQ(with(1, weights({6, 2, 3, 3})), qattrs({{"group", int64_t{4}}})),
                     "output channels 6 are not a positive multiple of group 4");
  EXPECT_INFER_ERROR(errorQ(with(3, channels(5)), qattrs()), "mult must have shape [6], got [5]");
  EXPECT_INFER_ERROR(errorQ(with(2, In::constant(Tensor(DType::I64, {6}))), qattrs()), "bias1 must be i32, got i64");
  EXPECT_INFER_ERROR(errorQ(with(4, In(tt(DType::I32, {6}))), qattrs()), "bias2 must be a constant");
  EXPECT_INFER_ERROR(errorQ(with(1, weights({6, 8, 7, 7})), qattrs()), "does not fit the padded input");
  // Residual: both or neither, with the output's shape.
  EXPECT_INFER_ERROR(errorQ(with(5, i8({1, 6, 3, 3})), qattrs()), "residual R needs residual_mult (input 6)");
  EXPECT_INFER_ERROR(errorQ(with(6, channels(6)), qattrs()), "residual_mult (input 6) is given without a residual R");
  std::vector<In> r = with(5, i8({1, 6, 5, 5}));
  r.push_back(channels(6));
  EXPECT_INFER_ERROR(errorQ(r, qattrs()), "residual R [1,6,5,5] must have the output's shape [1,6,3,3]");
  r[5] = In(tt(DType::U8, {1, 6, 3, 3}));
  EXPECT_INFER_ERROR(errorQ(r, qattrs()), "residual R must be i8, got u8");
  r[5] = i8({1, 6, 3, 3});
  r[6] = channels(3);
  EXPECT_INFER_ERROR(errorQ(r, qattrs()), "residual_mult must have shape [6], got [3]");
  r[6] = channels(6);
  EXPECT_EQ(errorQ(r, qattrs()), "");
}

TEST(VdlaQConvShape, AttributeErrors) {
  const std::vector<In> ok = {i8({1, 8, 5, 5}), weights({6, 8, 3, 3}), channels(6), channels(6), channels(6)};
  EXPECT_EQ(errorQ(ok, qattrs()), "");
  for (const char* name : {"shift1", "shift2", "clip_lo", "clip_hi"}) {
    AttributeMap a = qattrs();
    a.erase(name);
    EXPECT_INFER_ERROR(errorQ(ok, a), std::string("attribute '") + name + "' is required");
  }
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"shift1", int64_t{32}}})), "attribute 'shift1' must be in [0, 31], got 32");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"shift2", int64_t{-1}}})), "attribute 'shift2' must be in [0, 31], got -1");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"clip_lo", int64_t{-129}}})), "attribute 'clip_lo' must be in [-128, 127]");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"clip_hi", int64_t{128}}})), "attribute 'clip_hi' must be in [-128, 127]");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"clip_lo", int64_t{10}}, {"clip_hi", int64_t{9}}})),
                     "attribute 'clip_lo' 10 is greater than 'clip_hi' 9");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"x_zero_point", int64_t{200}}})),
                     "attribute 'x_zero_point' must be in [-128, 127], got 200");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"strides", Ints{1, 0}}})), "attribute 'strides' values must be >= 1");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"strides", Ints{1, 1, 1}}})), "attribute 'strides' needs 2 values");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"pads", Ints{1, 1}}})), "attribute 'pads' needs 4 values");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"pads", Ints{0, -1, 0, 0}}})), "attribute 'pads' values must be >= 0");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"dilations", Ints{0, 1}}})), "attribute 'dilations' values must be >= 1");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"group", int64_t{0}}})), "attribute 'group' must be >= 1");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"auto_pad", std::string("SAME_UPPER")}})), "'auto_pad' is not supported");
  // post_add: a fused addition needs its R, its three parameters, and no residual_shift.
  const AttributeMap post_add = qattrs(
      {{"post_add", int64_t{1}}, {"add_y_mult", int64_t{3}}, {"add_offset", int64_t{-5}}, {"add_shift", int64_t{4}}});
  EXPECT_INFER_ERROR(errorQ(ok, post_add), "post_add = 1 needs the residual R");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"post_add", int64_t{1}}})), "attribute 'add_y_mult' is required");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"add_shift", int64_t{4}}})), "need post_add = 1");
  EXPECT_INFER_ERROR(errorQ(ok, qattrs({{"post_add", int64_t{1}},
                                        {"add_y_mult", int64_t{3}},
                                        {"add_offset", int64_t{0}},
                                        {"add_shift", int64_t{32}}})),
                     "attribute 'add_shift' must be in [0, 31], got 32");
}

}  // namespace
}  // namespace vdla::ir::testing
