// TensorProto and AttributeProto decoding (the importer's internal helpers).
#include <gtest/gtest.h>

#include <cstring>

#include "attributes.h"
#include "tensor_proto.h"

namespace vdla::frontend::detail {
namespace {

onnx::TensorProto proto(int32_t type, std::vector<int64_t> dims) {
  onnx::TensorProto t;
  t.set_data_type(type);
  for (int64_t d : dims) t.add_dims(d);
  return t;
}

TEST(TensorProto, TypedFieldsOfEveryElementType) {
  auto f = proto(onnx::TensorProto::FLOAT, {2});
  f.add_float_data(1.5f);
  f.add_float_data(-2.0f);
  EXPECT_EQ(tensorFromProto(f).toVector<float>(), (std::vector<float>{1.5f, -2.0f}));

  auto i8 = proto(onnx::TensorProto::INT8, {3});
  for (int v : {-128, 0, 127}) i8.add_int32_data(v);
  EXPECT_EQ(tensorFromProto(i8).toVector<int8_t>(), (std::vector<int8_t>{-128, 0, 127}));

  auto u8 = proto(onnx::TensorProto::UINT8, {2});
  for (int v : {0, 255}) u8.add_int32_data(v);
  EXPECT_EQ(tensorFromProto(u8).toVector<uint8_t>(), (std::vector<uint8_t>{0, 255}));
  u8.set_int32_data(1, 256);
  EXPECT_THROW(tensorFromProto(u8), std::runtime_error);

  auto i32 = proto(onnx::TensorProto::INT32, {1});
  i32.add_int32_data(-7);
  EXPECT_EQ(tensorFromProto(i32).toVector<int32_t>(), (std::vector<int32_t>{-7}));

  auto i64 = proto(onnx::TensorProto::INT64, {2, 1});
  i64.add_int64_data(int64_t{1} << 40);
  i64.add_int64_data(-1);
  rt::Tensor t64 = tensorFromProto(i64);
  EXPECT_EQ(t64.shape(), (rt::Shape{2, 1}));
  EXPECT_EQ(t64.toVector<int64_t>(), (std::vector<int64_t>{int64_t{1} << 40, -1}));

  auto b = proto(onnx::TensorProto::BOOL, {2});
  b.add_int32_data(0);
  b.add_int32_data(1);
  EXPECT_EQ(tensorFromProto(b).toVector<bool>(), (std::vector<bool>{false, true}));

  auto wrong_field = proto(onnx::TensorProto::INT64, {1});
  wrong_field.add_int32_data(1);
  EXPECT_THROW(tensorFromProto(wrong_field), std::runtime_error);
}

TEST(TensorProto, RawDataIsLittleEndian) {
  auto t = proto(onnx::TensorProto::INT32, {2});
  t.set_raw_data(std::string("\x01\x00\x00\x00\xff\xff\xff\xff", 8));
  EXPECT_EQ(tensorFromProto(t).toVector<int32_t>(), (std::vector<int32_t>{1, -1}));
  auto b = proto(onnx::TensorProto::BOOL, {3});
  b.set_raw_data(std::string("\x00\x01\x02", 3));
  EXPECT_EQ(tensorFromProto(b).toVector<bool>(), (std::vector<bool>{false, true, true}));
  auto both = proto(onnx::TensorProto::INT32, {1});
  both.set_raw_data(std::string(4, '\0'));
  both.add_int32_data(1);
  EXPECT_THROW(tensorFromProto(both), std::runtime_error);
}

TEST(TensorProto, ScalarsAndEmptyTensors) {
  auto s = proto(onnx::TensorProto::FLOAT, {});
  s.add_float_data(3.0f);
  rt::Tensor scalar = tensorFromProto(s);
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.toVector<float>(), (std::vector<float>{3.0f}));
  rt::Tensor empty = tensorFromProto(proto(onnx::TensorProto::FLOAT, {0, 3}));
  EXPECT_EQ(empty.numElements(), 0);
}

TEST(TensorProto, ElementTypeNames) {
  EXPECT_EQ(onnxTypeName(onnx::TensorProto::FLOAT16), "FLOAT16");
  EXPECT_EQ(onnxTypeName(999), "type 999");
  for (rt::DType d : {rt::DType::F32, rt::DType::I8, rt::DType::U8, rt::DType::I32, rt::DType::I64, rt::DType::Bool})
    EXPECT_EQ(dtypeFromOnnx(onnxFromDtype(d)), d);
}

TEST(Attributes, EveryKindConverts) {
  onnx::AttributeProto a;
  a.set_name("i");
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(-3);
  EXPECT_EQ(std::get<int64_t>(attributeFromProto(a)), -3);

  a.Clear();
  a.set_name("f");
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(0.25f);
  EXPECT_EQ(std::get<double>(attributeFromProto(a)), 0.25);

  a.Clear();
  a.set_name("s");
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s("SAME_UPPER");
  EXPECT_EQ(std::get<std::string>(attributeFromProto(a)), "SAME_UPPER");

  a.Clear();
  a.set_name("ints");
  a.set_type(onnx::AttributeProto::INTS);
  a.add_ints(1);
  a.add_ints(-2);
  EXPECT_EQ(std::get<std::vector<int64_t>>(attributeFromProto(a)), (std::vector<int64_t>{1, -2}));

  a.Clear();
  a.set_name("floats");
  a.set_type(onnx::AttributeProto::FLOATS);
  a.add_floats(0.5f);
  EXPECT_EQ(std::get<std::vector<double>>(attributeFromProto(a)), (std::vector<double>{0.5}));

  a.Clear();
  a.set_name("t");
  a.set_type(onnx::AttributeProto::TENSOR);
  *a.mutable_t() = proto(onnx::TensorProto::INT64, {1});
  a.mutable_t()->add_int64_data(9);
  EXPECT_EQ(std::get<rt::Tensor>(attributeFromProto(a)).toVector<int64_t>(), (std::vector<int64_t>{9}));
}

TEST(Attributes, UntypedAttributesOfOldExportersAreInferred) {
  onnx::AttributeProto a;
  a.set_name("axis");
  a.set_i(2);
  EXPECT_EQ(std::get<int64_t>(attributeFromProto(a)), 2);
  onnx::AttributeProto empty;
  empty.set_name("nothing");
  EXPECT_THROW(attributeFromProto(empty), std::runtime_error);
}

TEST(Attributes, UnsupportedKindsAreRefusedByName) {
  onnx::AttributeProto a;
  a.set_name("names");
  a.set_type(onnx::AttributeProto::STRINGS);
  a.add_strings("x");
  try {
    attributeFromProto(a);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("attribute 'names' has kind STRINGS"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vdla::frontend::detail
