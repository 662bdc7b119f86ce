#include <gtest/gtest.h>

#include "vdla/runtime/attributes.h"
#include "vdla/runtime/tensor.h"

namespace vdla::rt {
namespace {

TEST(Tensor, TypedAccessChecksElementType) {
  Tensor t = Tensor::fromVector<int8_t>({2, 2}, {1, -2, 3, -4});
  EXPECT_EQ(t.numElements(), 4);
  EXPECT_EQ(t.byteSize(), 4u);
  EXPECT_EQ(t.data<int8_t>()[1], -2);
  EXPECT_THROW(t.data<float>(), std::invalid_argument);
  EXPECT_EQ(t.getAsInt(3), -4);
  EXPECT_EQ(t.type().toString(), "i8[2,2]");
  EXPECT_THROW(Tensor::fromVector<float>({3}, {1, 2}), std::invalid_argument);
}

TEST(Tensor, ReshapeSharesCloneCopies) {
  Tensor t = Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor r = t.reshaped({3, 2});
  Tensor c = t.clone();
  t.data<float>()[0] = 9;
  EXPECT_EQ(r.data<float>()[0], 9);
  EXPECT_EQ(c.data<float>()[0], 1);
  EXPECT_THROW(t.reshaped({4}), std::invalid_argument);
  EXPECT_EQ(rowMajorStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_THROW(numElements({2, -1}), std::invalid_argument);
  EXPECT_THROW(numElements({int64_t{1} << 40, int64_t{1} << 40}), std::invalid_argument);
  EXPECT_EQ(numElements({0, int64_t{1} << 40, int64_t{1} << 40}), 0);
}

TEST(Attributes, TypedGettersNameTheAttribute) {
  AttributeMap m;
  m.set("group", int64_t{2});
  m.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  m.set("alpha", int64_t{1});
  EXPECT_EQ(m.getInt("group"), 2);
  EXPECT_EQ(m.getInt("missing", 7), 7);
  EXPECT_DOUBLE_EQ(m.getFloat("alpha"), 1.0);  // ints accepted where floats are expected
  try {
    m.getString("pads");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "attribute 'pads' is ints, expected string");
  }
  EXPECT_THROW(m.getInts("nope"), std::invalid_argument);
}

TEST(Tensor, ViewSharesMemoryAndKeepsItsOwnerAlive) {
  auto owner = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4, 5, 6});
  std::weak_ptr<std::vector<float>> watch = owner;
  Tensor copy;
  {
    Tensor t = Tensor::view({DType::F32, {2, 3}}, owner->data(), owner);
    owner.reset();
    EXPECT_FALSE(watch.expired());
    EXPECT_EQ(t.data<float>()[4], 5.0f);
    watch.lock()->at(4) = 50.0f;  // the view sees the owner's memory, not a copy
    EXPECT_EQ(t.data<float>()[4], 50.0f);
    copy = t.reshaped({6});
  }
  EXPECT_FALSE(watch.expired());  // the reshaped copy still holds it
  EXPECT_EQ(copy.data<float>()[4], 50.0f);
  const Tensor deep = copy.clone();
  copy = Tensor();
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(deep.data<float>()[4], 50.0f);
}

TEST(Tensor, ViewRefusesMisalignedData) {
  alignas(16) static float data[8] = {};
  EXPECT_THROW(Tensor::view({DType::F32, {2}}, reinterpret_cast<char*>(data) + 4, nullptr), std::invalid_argument);
  EXPECT_NO_THROW(Tensor::view({DType::F32, {2}}, data, nullptr));
}

}  // namespace
}  // namespace vdla::rt
