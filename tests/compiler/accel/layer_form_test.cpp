// The forms chooseLayerForm considers for layers with few input channels: a
// grouped layer has no im2col or space-to-depth form (both would mix its
// groups' channels into one reduction), so it keeps its direct form even
// where block_in exceeds its channels; a dense one may take either.
#include <gtest/gtest.h>

#include "vdla/compiler/accel/layer_form.h"
#include "vdla/hw/config.h"

namespace vdla::accel {
namespace {

ConvLayer fewChannelLayer(int64_t group, int64_t stride) {
  ConvLayer L;
  L.name = "few_channels";
  L.c = 8;
  L.h = L.w = 28;
  L.o = 8;
  L.kh = L.kw = 3;
  L.sh = L.sw = stride;
  L.pad_top = L.pad_left = L.pad_bottom = L.pad_right = 1;
  L.oh = L.ow = (28 + 2 - 3) / stride + 1;
  L.group = group;
  L.weights.assign(static_cast<size_t>(L.o * (L.c / group) * 9), 1);
  L.bias1.assign(8, 0);
  L.mult.assign(8, 1);
  L.bias2.assign(8, 0);
  return L;
}

TEST(LayerForm, GroupedLayersWithFewChannelsKeepTheirDirectForm) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");  // block_in 16 > 8 channels
  for (int64_t stride : {1, 2}) {
    const LayerForm f = chooseLayerForm(fewChannelLayer(8, stride), cfg, true, /*allow_im2col=*/true);
    EXPECT_FALSE(f.im2col) << "stride " << stride;
    EXPECT_FALSE(f.space_to_depth) << "stride " << stride;
    EXPECT_EQ(f.layer.c, 8) << "stride " << stride;
  }
}

TEST(LayerForm, DenseLayersWithFewChannelsMayTakeATransformedForm) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  const LayerForm f = chooseLayerForm(fewChannelLayer(1, 2), cfg, true, /*allow_im2col=*/true);
  // Whichever form wins, its estimate and host work are counted.
  EXPECT_GT(f.estimate.cycles, 0);
  if (f.im2col) {
    EXPECT_EQ(f.layer.c, 8 * 9);
  }
  if (f.space_to_depth) {
    EXPECT_EQ(f.layer.c, 8 * 4);
  }
}

// On a 32-lane config an 8-channel 3x3 layer of stride 1 fits three columns
// in an entry: the column-unfolded form (24 lanes, a GEMM per kernel row
// instead of three) when its input comes from the host; when an offloaded
// layer writes its input, the direct form, whose input stays in device
// memory (a host transform would bring it to the host and back).
TEST(LayerForm, ColumnUnfoldOnlyForInputsFromTheHost) {
  const hw::HwConfig cfg = hw::loadConfig("ultra96");  // block_in 32
  const ConvLayer L = fewChannelLayer(1, 1);
  ASSERT_EQ(columnUnfoldOf(L, cfg), 3);
  const LayerForm from_host = chooseLayerForm(L, cfg, true, true, true, /*input_on_device=*/false);
  EXPECT_EQ(from_host.unfold_columns, 3);
  EXPECT_EQ(from_host.layer.c, 24);
  EXPECT_EQ(from_host.layer.kw, 1);
  EXPECT_EQ(from_host.layer.dilation_w, 3);
  const LayerForm resident = chooseLayerForm(L, cfg, true, true, true, /*input_on_device=*/true);
  EXPECT_TRUE(resident.layer.host.identity());
  EXPECT_EQ(resident.unfold_columns, 1);
  EXPECT_EQ(resident.layer.c, 8);
  const LayerForm off = chooseLayerForm(L, cfg, true, true, /*allow_unfold=*/false);
  EXPECT_EQ(off.unfold_columns, 1);
}

}  // namespace
}  // namespace vdla::accel
