#include "vdla/explore/device_confirmation.h"

#include <gtest/gtest.h>

#include <cmath>

#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/hw/error.h"

namespace vdla::explore {
namespace {

NetworkWorkload smallResNet() {
  zoo::ZooOptions z;
  z.image_size = 64;
  return prepareWorkload("resnet18", zoo::buildModel("resnet18", z), CompileOptions());
}

// pynq has a built-in cycle model, so nothing is built here.
TEST(DeviceConfirmationTest, CycleSimulatorMeasuresWhatTheCostModelEstimates) {
  const std::vector<NetworkWorkload> networks = {smallResNet()};
  const hw::HwConfig pynq = hw::loadConfig("pynq");
  const PointResult estimate =
      evaluateDesignPoint({pynq, true}, networks, ResourceModel::builtin(), fpgaPart(pynq.part));
  const Confirmation c = confirmOnDevice({pynq, true}, networks, "cycle");
  ASSERT_EQ(c.networks.size(), 1u);
  const ConfirmedNetwork& n = c.networks[0];
  // The full lowering chose the same forms and tilings as the sweep.
  EXPECT_DOUBLE_EQ(n.estimated_cycles, estimate.networks[0].cycles);
  EXPECT_GT(n.measured_cycles, estimate.networks[0].ideal_cycles);
  EXPECT_DOUBLE_EQ(n.measured_ms, n.measured_cycles / (pynq.clock_mhz * 1e3));
  EXPECT_DOUBLE_EQ(n.error, n.estimated_cycles / n.measured_cycles - 1);
  EXPECT_LT(std::fabs(n.error), 0.10) << "cost model " << n.estimated_cycles << " vs measured " << n.measured_cycles;
  // Without latency hiding the accelerator is slower, on the device too.
  const Confirmation off = confirmOnDevice({pynq, false}, networks, "cycle");
  EXPECT_GT(off.networks[0].measured_cycles, n.measured_cycles);
}

TEST(DeviceConfirmationTest, DevicesWithoutCyclesAreRefused) {
  const std::vector<NetworkWorkload> networks = {smallResNet()};
  const hw::HwConfig pynq = hw::loadConfig("pynq");
  try {
    confirmOnDevice({pynq, true}, networks, "fsim");
    FAIL() << "fsim counts no cycles";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device 'fsim' counts no cycles"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vdla::explore
