#include "vdla/explore/resource_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

#include "resource_calibration_json.h"
#include "vdla/hw/error.h"

namespace vdla::explore {

namespace {

// yosys keeps memories this shallow in LUT RAM (tiny's 64-entry buffers).
constexpr uint64_t kLutRamMaxDepth = 64;
// Width of a command queue entry (vdla_top: the instruction plus its index).
constexpr uint64_t kCommandQueueBits = 160;
constexpr int kCommandQueues = 3;

// Block RAM36 for a `width` x `depth` memory with one read and one write port.
// With write lanes narrower than the entry, each byte of a lane takes a byte
// enable and the parity bit of each 9-bit group goes unused (8 data bits per
// 9); otherwise all 9 are data. RAMB18 halves count 0.5.
double blockRam36(uint64_t width, uint64_t depth, bool byte_lanes) {
  if (depth <= kLutRamMaxDepth) return 0;
  struct Aspect {
    uint64_t depth, bits;
    double size;  // in BRAM36
  };
  static const Aspect aspects[] = {{512, 72, 1},   {1024, 36, 1},  {2048, 18, 1},  {4096, 9, 1},    {8192, 4, 1},
                                   {16384, 2, 1},  {32768, 1, 1},  {512, 36, 0.5}, {1024, 18, 0.5}, {2048, 9, 0.5},
                                   {4096, 4, 0.5}, {8192, 2, 0.5}, {16384, 1, 0.5}};
  double best = std::numeric_limits<double>::infinity();
  for (const Aspect& a : aspects) {
    const uint64_t bits = byte_lanes && a.bits >= 9 ? a.bits / 9 * 8 : a.bits;
    const double blocks = double((width + bits - 1) / bits) * double((depth + a.depth - 1) / a.depth) * a.size;
    best = std::min(best, blocks);
  }
  return best;
}

// UltraRAM blocks (URAM288: 4096 x 72 bits, one read and one write port,
// 9-bit write groups) for a `width` x `depth` memory, as yosys maps them:
// all 72 bits of a block whatever the write lanes, and a memory at most half
// as wide as a block holds that many words per row (a power of two: 8192 x
// 32 bits is one block), blocks cascaded for the rest of the depth.
double ultraRam(uint64_t width, uint64_t depth) {
  uint64_t words_per_row = 1;
  while (width * words_per_row * 2 <= 72) words_per_row *= 2;
  return double((width + 71) / 72) * double((depth + 4096 * words_per_row - 1) / (4096 * words_per_row));
}

double lutRam(uint64_t width, uint64_t depth) {
  return depth <= kLutRamMaxDepth ? double(width) * double((depth + 63) / 64) : 0;
}

// LUT and FF are fitted over these.
std::vector<double> linearFeatures(const ResourceFeatures& f) {
  return {1.0,
          f.alu_lanes,
          f.gemm_products,
          f.axi_bits,
          f.fused_requant_lanes,
          f.float_requant_lanes,
          f.depthwise_window,
          f.bias_clear_lanes,
          f.gemm_requant_lanes};
}

// Least squares by the normal equations (few points, few unknowns). A tiny
// ridge keeps the system solvable when the points do not pin every
// coefficient; such a coefficient then stays near zero.
std::vector<double> leastSquares(const std::vector<std::vector<double>>& rows, const std::vector<double>& y) {
  const size_t n = rows.at(0).size();
  std::vector<std::vector<double>> a(n, std::vector<double>(n + 1, 0.0));
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) a[i][j] += rows[r][i] * rows[r][j];
      a[i][n] += rows[r][i] * y[r];
    }
  for (size_t i = 0; i < n; ++i) a[i][i] += 1e-9 * (1.0 + a[i][i]);
  for (size_t c = 0; c < n; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
    std::swap(a[c], a[pivot]);
    if (a[c][c] == 0) throw Error("resource model: calibration data cannot determine the coefficients");
    for (size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double k = a[r][c] / a[c][c];
      for (size_t j = c; j <= n; ++j) a[r][j] -= k * a[c][j];
    }
  }
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = a[i][n] / a[i][i];
  return x;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

std::vector<CalibrationPoint> parseCalibration() {
  const nlohmann::json doc = nlohmann::json::parse(kResourceCalibrationJson);
  std::vector<CalibrationPoint> points;
  for (const auto& p : doc.at("points")) {
    CalibrationPoint c;
    const std::string origin = "explore/data/resource_calibration.json:" + p.at("config").at("name").get<std::string>();
    c.config = hw::parseConfig(p.at("config").dump(), origin);
    c.family = fpgaPart(c.config.part).family;
    const auto& m = p.at("measured");
    c.measured = {m.at("lut").get<double>(), m.at("ff").get<double>(), m.at("dsp").get<double>(),
                  m.at("bram36").get<double>(), m.value("uram", 0.0)};
    points.push_back(c);
  }
  return points;
}

}  // namespace

ResourceFeatures resourceFeatures(const hw::HwConfig& c) {
  ResourceFeatures f;
  f.alu_lanes = double(c.batch) * c.block_out;
  f.gemm_products = double(c.batch) * c.block_in * c.block_out;
  f.dsp_pairs = double(c.batch) * c.block_in * ((c.block_out + 1) / 2);
  f.axi_bits = c.axi_data_bits;
  f.fused_requant_lanes = c.fused_requant ? f.alu_lanes : 0.0;
  f.float_requant_lanes = c.float_requant ? f.alu_lanes : 0.0;
  f.depthwise_window = double(c.batch) * c.block_in * c.depthwise_taps;
  f.bias_clear_lanes = c.alu_bias_clear ? f.alu_lanes : 0.0;
  f.gemm_requant_lanes = c.gemm_requant ? f.alu_lanes : 0.0;
  struct Mem {
    uint64_t width, depth;
    bool lanes;
    hw::Memory id;
  };
  const uint64_t inp_w = uint64_t(c.entryBytes(hw::Memory::Input)) * 8,
                 wgt_w = uint64_t(c.entryBytes(hw::Memory::Weight)) * 8;
  const uint64_t acc_w = uint64_t(c.entryBytes(hw::Memory::Acc)) * 8;
  // vdla_top: INP and WGT are written an AXI beat at a time, ACC 32 bits at a time.
  // acc_dual_read: a second copy of ACC (vdla_compute's acc_src_mem). Its
  // logic is a wider select on the operand registers' inputs, which the
  // fitted LUT terms do not separate.
  const Mem mems[] = {
      {inp_w, c.depth(hw::Memory::Input), inp_w > c.axi_data_bits, hw::Memory::Input},
      {wgt_w, c.depth(hw::Memory::Weight), wgt_w > c.axi_data_bits, hw::Memory::Weight},
      {acc_w, c.depth(hw::Memory::Acc), acc_w > 32, hw::Memory::Acc},
      {acc_w, c.acc_dual_read ? c.depth(hw::Memory::Acc) : 0, acc_w > 32, hw::Memory::Acc},
      {uint64_t(c.entryBytes(hw::Memory::Output)) * 8, c.depth(hw::Memory::Output), false, hw::Memory::Output},
      {uint64_t(c.entryBytes(hw::Memory::Uop)) * 8, c.depth(hw::Memory::Uop), false, hw::Memory::Uop}};
  for (const Mem& m : mems) {
    if (m.depth == 0) continue;
    if (c.inUltraRam(m.id)) {
      f.uram += ultraRam(m.width, m.depth);
      continue;
    }
    f.bram36 += blockRam36(m.width, m.depth, m.lanes);
    f.lutram_luts += lutRam(m.width, m.depth);
  }
  f.bram36 += kCommandQueues * blockRam36(kCommandQueueBits, c.command_queue_depth, false);
  f.lutram_luts += kCommandQueues * lutRam(kCommandQueueBits, c.command_queue_depth);
  return f;
}

const std::vector<CalibrationPoint>& builtinCalibrationPoints() {
  static const std::vector<CalibrationPoint> points = parseCalibration();
  return points;
}

ResourceModel ResourceModel::fit(const std::vector<CalibrationPoint>& points) {
  if (points.empty()) throw Error("resource model: no calibration points");
  ResourceModel m;
  std::vector<std::vector<double>> rows;
  std::vector<double> lut, ff;
  std::vector<std::string> families;
  for (const CalibrationPoint& p : points) {
    const ResourceFeatures f = resourceFeatures(p.config);
    rows.push_back(linearFeatures(f));
    lut.push_back(p.measured.lut - f.lutram_luts);
    ff.push_back(p.measured.ff);
    if (std::find(families.begin(), families.end(), p.family) == families.end()) families.push_back(p.family);
  }
  m.lut_ = leastSquares(rows, lut);
  m.ff_ = leastSquares(rows, ff);
  for (const std::string& family : families) {
    std::vector<std::vector<double>> drows;
    std::vector<double> dsp;
    for (const CalibrationPoint& p : points) {
      if (p.family != family) continue;
      const ResourceFeatures f = resourceFeatures(p.config);
      drows.push_back({f.alu_lanes, 1.0});
      dsp.push_back(p.measured.dsp - f.dsp_pairs);
    }
    const std::vector<double> k = leastSquares(drows, dsp);
    double bram_measured = 0, bram_structural = 0;
    for (const CalibrationPoint& p : points)
      if (p.family == family) bram_measured += p.measured.bram36, bram_structural += resourceFeatures(p.config).bram36;
    m.families_.push_back({family, k[0], k[1], bram_structural > 0 ? bram_measured / bram_structural : 1.0});
  }
  char buf[64];
  std::string fp;
  for (double v : m.lut_) fp += (std::snprintf(buf, sizeof buf, "%.6g,", v), buf);
  for (double v : m.ff_) fp += (std::snprintf(buf, sizeof buf, "%.6g,", v), buf);
  for (const FamilyFit& d : m.families_)
    fp += d.family + (std::snprintf(buf, sizeof buf, ":%.6g:%.6g:%.6g,", d.per_lane, d.fixed, d.bram_scale), buf);
  m.fingerprint_ = fp;
  return m;
}

const ResourceModel& ResourceModel::builtin() {
  static const ResourceModel model = fit(builtinCalibrationPoints());
  return model;
}

ResourceEstimate ResourceModel::estimate(const hw::HwConfig& cfg, const std::string& family) const {
  const ResourceFeatures f = resourceFeatures(cfg);
  const FamilyFit* fit = nullptr;
  for (const FamilyFit& d : families_)
    if (d.family == family) fit = &d;
  // A family without its own data takes another's fit: the DSP48E1 and
  // DSP48E2 multipliers cover the same 32x32 product in the same slices.
  if (!fit) fit = &families_.at(0);
  ResourceEstimate r;
  const std::vector<double> x = linearFeatures(f);
  r.lut = std::max(0.0, dot(lut_, x)) + f.lutram_luts;
  r.ff = std::max(0.0, dot(ff_, x));
  r.dsp = std::round(f.dsp_pairs + fit->per_lane * f.alu_lanes + fit->fixed);
  // Whole RAMB18 halves, never below none.
  r.bram36 = std::max(0.0, std::round(2 * f.bram36 * fit->bram_scale) / 2);
  r.uram = f.uram;
  return r;
}

std::string whyNotFits(const ResourceEstimate& r, const FpgaPart& part, double lut_fraction) {
  char buf[160];
  std::string why;
  auto over = [&](const char* what, double used, double limit, const char* rule) {
    if (used <= limit) return;
    std::snprintf(buf, sizeof buf, "%s %.0f > %.0f%s", what, used, limit, rule);
    why += (why.empty() ? "" : "; ") + std::string(buf);
  };
  over("DSP", r.dsp, part.dsp, "");
  over("BRAM36", r.bram36, part.bram36, "");
  if (r.uram > 0 && part.uram == 0)
    why += (why.empty() ? "" : "; ") + std::string("UltraRAM ") + std::to_string(int64_t(r.uram)) + " > 0 (the " +
           part.device + " has none)";
  else
    over("URAM", r.uram, part.uram, "");
  over("LUT", r.lut, std::floor(part.lut * lut_fraction), " (85% of the part)");
  return why;
}

std::vector<CalibrationResidual> calibrationResiduals(const std::vector<CalibrationPoint>& points) {
  const ResourceModel all = ResourceModel::fit(points);
  std::vector<CalibrationResidual> out;
  for (size_t i = 0; i < points.size(); ++i) {
    CalibrationResidual r;
    r.config = points[i].config.name;
    r.family = points[i].family;
    r.measured = points[i].measured;
    r.in_sample = all.estimate(points[i].config, points[i].family);
    std::vector<CalibrationPoint> others;
    for (size_t j = 0; j < points.size(); ++j)
      if (j != i) others.push_back(points[j]);
    r.leave_one_out =
        others.empty() ? r.in_sample : ResourceModel::fit(others).estimate(points[i].config, points[i].family);
    out.push_back(r);
  }
  return out;
}

}  // namespace vdla::explore
