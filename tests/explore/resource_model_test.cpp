#include "vdla/explore/resource_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "vdla/hw/error.h"

namespace vdla::explore {
namespace {

hw::HwConfig shipped(const std::string& name) { return hw::loadConfig(name); }

TEST(FpgaPartTest, FindsDevicesByFullPartName) {
  EXPECT_EQ(fpgaPart("xc7z020clg400-1").device, "xc7z020");
  EXPECT_EQ(fpgaPart("xczu7ev-ffvc1156-2-e").device, "xczu7ev");
  EXPECT_EQ(fpgaPart("XCZU3EG-sbva484-1-i").family, "xcup");
  EXPECT_EQ(fpgaPart("xc7z020").dsp, 220);
  EXPECT_EQ(fpgaPart("xczu3eg").dpu_clock_mhz, 287);
}

TEST(FpgaPartTest, UnknownPartNamesTheKnownOnes) {
  try {
    fpgaPart("xcvu9p-flga2104");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'xcvu9p-flga2104'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("xc7z020, xczu3eg, xczu7ev"), std::string::npos) << e.what();
  }
}

// The structural parts reproduce what yosys inferred for pynq (docs/hardware.md):
// 128 DSPs for the 256 products, 103 BRAM36 without acc_dual_read (WGT 32,
// ACC 32, INP 16, UOP 8, OUT 7.5, queues 7.5; with 32/256 KiB of INP/WGT,
// pynq-w256 in the calibration data, 127: WGT 64, INP 8), and ACC's copy
// another 32 with it.
TEST(ResourceModelTest, StructureOfPynqMatchesItsSynthesis) {
  hw::HwConfig pynq = shipped("pynq");
  ASSERT_TRUE(pynq.acc_dual_read);
  const ResourceFeatures f = resourceFeatures(pynq);
  EXPECT_EQ(f.dsp_pairs, 128);
  EXPECT_EQ(f.alu_lanes, 16);
  EXPECT_EQ(f.bram36, 135);
  EXPECT_EQ(f.lutram_luts, 0);
  pynq.acc_dual_read = false;
  EXPECT_EQ(resourceFeatures(pynq).bram36, 103);
}

// tiny's 64-entry memories stay in LUT RAM; only UOP (256 x 32, one RAMB18)
// and INP (128 x 64, two RAMB18) take block RAM: 1.5, as yosys found.
TEST(ResourceModelTest, ShallowMemoriesGoToLutRam) {
  const ResourceFeatures f = resourceFeatures(shipped("tiny"));
  EXPECT_EQ(f.bram36, 1.5);
  EXPECT_GT(f.lutram_luts, 0);
}

TEST(ResourceModelTest, FittedModelReproducesItsCalibrationData) {
  const auto& points = builtinCalibrationPoints();
  ASSERT_FALSE(points.empty());
  for (const CalibrationResidual& r : calibrationResiduals(points)) {
    SCOPED_TRACE(r.config);
    EXPECT_NEAR(r.in_sample.dsp, r.measured.dsp, std::max(2.0, 0.03 * r.measured.dsp));
    EXPECT_NEAR(r.in_sample.bram36, r.measured.bram36, std::max(1.0, 0.05 * r.measured.bram36));
    // UltraRAM is counted, not fitted: it must be exact.
    EXPECT_EQ(r.in_sample.uram, r.measured.uram);
    EXPECT_NEAR(r.in_sample.lut, r.measured.lut, 0.15 * r.measured.lut);
    // FF is reported, not judged (no design comes near a part's flip-flops),
    // and four coefficients follow it least closely.
    EXPECT_NEAR(r.in_sample.ff, r.measured.ff, 0.35 * r.measured.ff);
  }
}

TEST(ResourceModelTest, GrowsWithTheArrayAndTheBuffers) {
  const ResourceModel& m = ResourceModel::builtin();
  hw::HwConfig small = shipped("pynq");
  hw::HwConfig wide = small;
  wide.block_out = 32;
  hw::HwConfig deep = small;
  deep.weight_bytes *= 2;
  const ResourceEstimate a = m.estimate(small, "xc7"), b = m.estimate(wide, "xc7"), c = m.estimate(deep, "xc7");
  EXPECT_GT(b.dsp, a.dsp + 100);  // 128 more products (64 DSPs) and 16 more ALU lanes
  EXPECT_GT(b.lut, a.lut);
  EXPECT_EQ(c.dsp, a.dsp);
  EXPECT_EQ(c.bram36, a.bram36 + 32);  // WGT doubles: 512 x 2048 bits to 1024 x 2048
}

TEST(ResourceModelTest, FitsNamesTheResourceOver) {
  const FpgaPart& part = fpgaPart("xc7z020");
  EXPECT_EQ(whyNotFits({1000, 1000, 220, 140}, part), "");
  const std::string why = whyNotFits({50000, 1000, 221, 141}, part);
  EXPECT_NE(why.find("DSP 221 > 220"), std::string::npos) << why;
  EXPECT_NE(why.find("BRAM36 141 > 140"), std::string::npos) << why;
  EXPECT_NE(why.find("LUT 50000 > 45220 (85% of the part)"), std::string::npos) << why;
}

// Buffers in UltraRAM leave block RAM for URAM288s of 4096 x 72 bits:
// pynq's ACC (2048 x 512 bits) and its copy take 8 each instead of 32, INP
// (4096 x 128) 2 instead of 16, UOP (8192 x 32, two words a row) 1 instead of
// 8, as yosys maps such memories.
TEST(ResourceModelTest, UltraRamTakesTheBuffersPlacedThere) {
  hw::HwConfig c = shipped("pynq");
  ASSERT_EQ(resourceFeatures(c).uram, 0);
  c.ultraram =
      (1u << unsigned(hw::Memory::Acc)) | (1u << unsigned(hw::Memory::Input)) | (1u << unsigned(hw::Memory::Uop));
  const ResourceFeatures f = resourceFeatures(c);
  EXPECT_EQ(f.uram, 8 + 8 + 2 + 1);
  EXPECT_EQ(f.bram36, 135 - 32 - 32 - 16 - 8);
  // No UltraRAM on the xc7z020 or the xczu3eg; 96 on the xczu7ev.
  const ResourceEstimate r = ResourceModel::builtin().estimate(c, "xc7");
  EXPECT_EQ(r.uram, 19);
  const std::string why = whyNotFits(r, fpgaPart("xc7z020"));
  EXPECT_NE(why.find("UltraRAM 19 > 0 (the xc7z020 has none)"), std::string::npos) << why;
  EXPECT_EQ(fpgaPart("xczu3eg").uram, 0);
  EXPECT_EQ(fpgaPart("xczu7ev").uram, 96);
  EXPECT_EQ(whyNotFits({1000, 1000, 100, 100, 96}, fpgaPart("xczu7ev")), "");
  // yosys on a whole design with its INP, ACC and ACC's copy, OUT and UOP
  // in UltraRAM took 21, as counted (the calibration point).
  bool measured = false;
  for (const CalibrationPoint& p : builtinCalibrationPoints())
    if (p.measured.uram > 0) {
      EXPECT_EQ(resourceFeatures(p.config).uram, p.measured.uram) << p.config.name;
      measured = true;
    }
  EXPECT_TRUE(measured) << "no calibration point has UltraRAM";
  EXPECT_NE(whyNotFits({1000, 1000, 100, 100, 97}, fpgaPart("xczu7ev")).find("URAM 97 > 96"), std::string::npos);
}

TEST(ResourceModelTest, FitNeedsData) { EXPECT_THROW(ResourceModel::fit({}), Error); }

}  // namespace
}  // namespace vdla::explore
