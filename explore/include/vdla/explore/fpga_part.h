// The FPGA devices VDLA targets, from vdla_hw/parts/fpga_parts.json (built
// in): capacities for the resource model's fit check, the synthesis family,
// and the clock the vendor's DPU runs at on the device, which the explorer
// takes as its default clock cap.
#pragma once

#include <string>
#include <vector>

namespace vdla::explore {

struct FpgaPart {
  std::string device;  // "xc7z020"
  std::string family;  // yosys synth_xilinx -family: "xc7" or "xcup"
  std::string dsp_cell;
  double lut = 0, ff = 0, dsp = 0, bram36 = 0;
  double uram = 0;  // URAM288 blocks (0: none on this device)
  double dpu_clock_mhz = 0;
};

std::vector<FpgaPart> knownFpgaParts();

// The device of a full part name ("xc7z020clg400-1", "xczu7ev-ffvc1156-2-e")
// or a device name ("xczu3eg"). Throws vdla::Error naming the part and the
// known devices.
const FpgaPart& fpgaPart(const std::string& part_name);

}  // namespace vdla::explore
