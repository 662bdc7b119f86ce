// An analytical model of the FPGA resources (LUT, FF, DSP, BRAM36) one VDLA
// configuration needs, fast enough to judge thousands of design points.
//
// DSP and BRAM follow the RTL's structure (docs/hardware.md, "DSP budget" and
// "Memories"): two int8 products per DSP for the GEMM core, a multiplier per
// ALU lane, a few for address arithmetic; every on-chip memory mapped onto the
// block-RAM aspect ratio that needs the fewest blocks, or in 4096 x 72-bit
// UltraRAM blocks where the config places it there (`ultraram`). The per-lane and fixed
// DSP counts, a per-family BRAM scale and all LUT/FF coefficients are fitted
// by least squares to yosys
// runs of a spread of configurations (explore/data/resource_calibration.json,
// made by scripts/hw/calibrate_resources.sh), so the model and its data never
// disagree; calibrationResiduals() reports how far it is from them.
#pragma once

#include <string>
#include <vector>

#include "vdla/explore/fpga_part.h"
#include "vdla/hw/config.h"

namespace vdla::explore {

struct ResourceEstimate {
  double lut = 0, ff = 0, dsp = 0, bram36 = 0;
  double uram = 0;  // URAM288 blocks: the buffers a config places in UltraRAM
};

// The structural quantities the model is linear in.
struct ResourceFeatures {
  double alu_lanes = 0;      // batch * block_out
  double gemm_products = 0;  // batch * block_in * block_out
  double dsp_pairs = 0;      // GEMM DSPs: products sharing an input, two per DSP
  double axi_bits = 0;
  double fused_requant_lanes = 0;  // ALU lanes with REQ's clip after the MULSHR
  double float_requant_lanes = 0;  // ALU lanes with FREQ's normalising and rounding logic
  // DWGEMM: input bytes of the window (batch * block_in * depthwise_taps),
  // each with its activation select, window register and column adder input
  double depthwise_window = 0;
  // alu_bias_clear: ALU lanes with the bias register and the adder before the op
  double bias_clear_lanes = 0;
  // gemm_requant: ALU lanes whose inputs also take the GEMM's sum and the
  // SETREQ registers
  double gemm_requant_lanes = 0;
  double bram36 = 0;       // block RAM of the memories and command queues
  double uram = 0;         // UltraRAM of the memories the config places there
  double lutram_luts = 0;  // memories too shallow for block RAM
};
ResourceFeatures resourceFeatures(const hw::HwConfig& cfg);

// One yosys measurement the model is fitted to.
struct CalibrationPoint {
  hw::HwConfig config;
  std::string family;  // synth_xilinx family of its part
  ResourceEstimate measured;
};
// The built-in calibration data.
const std::vector<CalibrationPoint>& builtinCalibrationPoints();

class ResourceModel {
 public:
  // Fits the coefficients to `points` (at least one per FPGA family for the
  // DSP fit; LUT and FF are fitted over all of them).
  static ResourceModel fit(const std::vector<CalibrationPoint>& points);
  // The model fitted to the built-in data (fitted once).
  static const ResourceModel& builtin();

  ResourceEstimate estimate(const hw::HwConfig& cfg, const std::string& family) const;
  // A short identity of the coefficients, for caches of results that used them.
  const std::string& fingerprint() const { return fingerprint_; }

 private:
  // Per family: DSP = dsp_pairs + per_lane * lanes + fixed; BRAM36 = the
  // structural count * bram_scale (the family's measured total over its
  // structural total: UltraScale+ packs the wide memories' lanes a little
  // tighter, 30 blocks for a 512 x 2048-bit WGT where the count says 32).
  struct FamilyFit {
    std::string family;
    double per_lane = 0, fixed = 0, bram_scale = 1;
  };
  std::vector<FamilyFit> families_;
  std::vector<double> lut_, ff_;  // over linearFeatures()
  std::string fingerprint_;
};

// Fits resources within `part` under the project's rule: DSP, BRAM and
// UltraRAM within the part, LUT at most `lut_fraction` of it (yosys LUT counts run high).
// Returns "" when it fits, else which resource is over and by how much.
std::string whyNotFits(const ResourceEstimate& r, const FpgaPart& part, double lut_fraction = 0.85);

// How the model does on its own data: each point predicted by the model
// fitted to all points (in_sample) and to all the others (leave_one_out).
struct CalibrationResidual {
  std::string config;
  std::string family;
  ResourceEstimate measured, in_sample, leave_one_out;
};
std::vector<CalibrationResidual> calibrationResiduals(const std::vector<CalibrationPoint>& points);

}  // namespace vdla::explore
