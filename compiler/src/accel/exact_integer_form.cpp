// The search for an integer form that reproduces a float kernel exactly
// (exact_integer_form.h).
#include "vdla/compiler/accel/exact_integer_form.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

namespace vdla::accel {

int32_t IntegerAffineForm::apply(int32_t a, int32_t b) const {
  int64_t v = int64_t(ma) * a + int64_t(mb) * b + k;
  if (shift > 0) v = (v + (int64_t(1) << (shift - 1))) >> shift;
  return static_cast<int32_t>(std::min<int64_t>(127, std::max<int64_t>(-128, v)));
}

std::optional<IntegerAffineForm> findExactAffineForm(double ratio_a, double ratio_b, double fixed, int64_t max_a,
                                                     int64_t max_b, const std::vector<AffineSample>& samples) {
  // The finest shift whose sums stay inside int32 with room for the
  // candidates' offsets: max_a*|ma| + max_b*|mb| + |k| + 2^(s-1) < 2^31.
  const double magnitude =
      double(max_a) * std::fabs(ratio_a) + double(max_b) * std::fabs(ratio_b) + std::fabs(fixed) + 1;
  const int s_max = std::min(30, int(std::floor(std::log2(double(1u << 30) / magnitude))) + 1);
  const int64_t reach_a = max_b ? 4 : 256, reach_b = max_b ? 4 : 0;
  // Multiplier offsets, nearest first.
  std::vector<std::pair<int64_t, int64_t>> steps;
  for (int64_t da = -reach_a; da <= reach_a; ++da)
    for (int64_t db = -reach_b; db <= reach_b; ++db) steps.push_back({da, db});
  std::stable_sort(steps.begin(), steps.end(), [](const auto& x, const auto& y) {
    return std::llabs(x.first) + std::llabs(x.second) < std::llabs(y.first) + std::llabs(y.second);
  });
  for (int s = s_max; s >= std::max(0, s_max - 6); --s) {
    const double unit_f = std::ldexp(1.0, s);
    const int64_t unit = int64_t(1) << s, half = s > 0 ? unit / 2 : 0;
    const int64_t ma0 = std::llround(ratio_a * unit_f), mb0 = max_b ? std::llround(ratio_b * unit_f) : 0;
    const int64_t k0 = std::llround(fixed * unit_f);
    for (const auto& [da, db] : steps) {
      const int64_t ma = ma0 + da, mb = mb0 + db;
      // floor((t + k) / 2^s) = y  <=>  y*2^s <= t + k < (y+1)*2^s, with t = ma*a + mb*b + 2^(s-1);
      // the clipped ends bound k on one side only.
      int64_t k_lo = std::numeric_limits<int64_t>::min(), k_hi = std::numeric_limits<int64_t>::max();
      for (const AffineSample& x : samples) {
        const int64_t t = ma * x.a + mb * x.b + half;
        if (x.y > -128) k_lo = std::max(k_lo, int64_t(x.y) * unit - t);
        if (x.y < 127) k_hi = std::min(k_hi, (int64_t(x.y) + 1) * unit - t - 1);
        if (k_lo > k_hi) break;
      }
      if (k_lo > k_hi) continue;
      const int64_t k = std::min(k_hi, std::max(k_lo, k0));
      const int64_t bound = max_a * std::llabs(ma) + max_b * std::llabs(mb) + std::llabs(k) + half;
      if (bound >= (int64_t(1) << 31)) continue;
      IntegerAffineForm f;
      f.ma = static_cast<int32_t>(ma);
      f.mb = static_cast<int32_t>(mb);
      f.k = static_cast<int32_t>(k);
      f.shift = s;
      return f;
    }
  }
  return std::nullopt;
}

namespace {

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

}  // namespace

int32_t ScaledForm::apply(int32_t a) const {
  const int64_t t = (int64_t(a) << pre_shift) + c;
  int64_t v = t * m;
  if (shift > 0) v = (v + (int64_t(1) << (shift - 1))) >> shift;
  return static_cast<int32_t>(std::min<int64_t>(127, std::max<int64_t>(-128, v)));
}

std::optional<ScaledForm> findExactScaledForm(double ratio, double fixed, int64_t max_a,
                                              const std::vector<AffineSample>& samples) {
  if (!(ratio > 0)) return std::nullopt;
  constexpr int64_t kMaxMultiplier = (int64_t(1) << 25) - 1;  // MULSHR's operand >> 6, positive
  const double offset = fixed / ratio;                        // in units of the input
  int p = 0;
  while (p < 30 &&
         double(max_a + 2) * std::ldexp(1.0, p + 1) + std::fabs(offset) * std::ldexp(1.0, p + 1) < std::ldexp(1.0, 30))
    ++p;
  // The shift that makes the nearest multiplier as large as MULSHR takes;
  // y * 2^shift must stay inside int64.
  const int s_top = std::min(55, int(std::floor(std::log2(double(kMaxMultiplier) / ratio))) + p);
  std::vector<int64_t> steps;
  for (int64_t d = 0; d <= 64; ++d) {
    steps.push_back(d);
    if (d) steps.push_back(-d);
  }
  for (int s = s_top; s >= std::max(0, s_top - 4); --s) {
    const int64_t unit = int64_t(1) << s, half = s > 0 ? unit / 2 : 0;
    const int64_t m0 = std::llround(ratio * std::ldexp(1.0, s - p));
    const int64_t c0 = std::llround(offset * std::ldexp(1.0, p));
    for (int64_t d : steps) {
      const int64_t m = m0 + d;
      if (m < 1 || m > kMaxMultiplier) continue;
      // floor((m*((a << p) + c) + half) / 2^s) = y  <=>  y*2^s <= m*(a << p) + m*c + half < (y+1)*2^s.
      int64_t c_lo = std::numeric_limits<int64_t>::min(), c_hi = std::numeric_limits<int64_t>::max();
      for (const AffineSample& x : samples) {
        const int64_t t = m * (int64_t(x.a) << p) + half;
        if (x.y > -128) c_lo = std::max(c_lo, ceilDiv(int64_t(x.y) * unit - t, m));
        if (x.y < 127) c_hi = std::min(c_hi, floorDiv((int64_t(x.y) + 1) * unit - 1 - t, m));
        if (c_lo > c_hi) break;
      }
      if (c_lo > c_hi) continue;
      const int64_t c = std::min(c_hi, std::max(c_lo, c0));
      if ((max_a << p) + std::llabs(c) >= (int64_t(1) << 31)) continue;
      ScaledForm f;
      f.pre_shift = p;
      f.c = static_cast<int32_t>(c);
      f.m = static_cast<int32_t>(m);
      f.shift = s;
      return f;
    }
  }
  return std::nullopt;
}

}  // namespace vdla::accel
