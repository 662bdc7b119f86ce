#include "vdla/compiler/accel/border_correction.h"

#include <algorithm>

namespace vdla::accel {

std::vector<BorderRange> borderRanges(int64_t outputs, int64_t inputs, int64_t kernel, int64_t stride,
                                      int64_t pad_begin) {
  std::vector<BorderRange> out;
  for (int64_t o = 0; o < outputs; ++o) {
    const int64_t start = o * stride - pad_begin;
    const int64_t before = std::clamp<int64_t>(-start, 0, kernel);
    const int64_t after = std::clamp<int64_t>(start + kernel - inputs, 0, kernel);
    if (!out.empty() && out.back().before == before && out.back().after == after)
      ++out.back().count;
    else
      out.push_back({o, 1, before, after});
  }
  return out;
}

std::vector<BorderCorrection> borderCorrections(const ConvLayer& L) {
  std::vector<BorderCorrection> out;
  if (L.pad_value == 0 || !(L.pad_top || L.pad_left || L.pad_bottom || L.pad_right)) return out;
  const int64_t cg = L.c / L.group;
  for (const BorderRange& rows : borderRanges(L.oh, L.h, L.kh, L.sh, L.pad_top))
    for (const BorderRange& cols : borderRanges(L.ow, L.w, L.kw, L.sw, L.pad_left)) {
      if (rows.interior() && cols.interior()) continue;
      BorderCorrection c{rows, cols, std::vector<int32_t>(static_cast<size_t>(L.o))};
      for (int64_t o = 0; o < L.o; ++o) {
        int64_t sum = 0;
        for (int64_t cl = 0; cl < cg; ++cl)
          for (int64_t ky = 0; ky < L.kh; ++ky)
            for (int64_t kx = 0; kx < L.kw; ++kx) {
              const bool padded =
                  ky < rows.before || ky >= L.kh - rows.after || kx < cols.before || kx >= L.kw - cols.after;
              if (padded) sum += L.weights[static_cast<size_t>(((o * cg + cl) * L.kh + ky) * L.kw + kx)];
            }
        c.values[static_cast<size_t>(o)] =
            static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum * L.pad_value)));
      }
      out.push_back(std::move(c));
    }
  return out;
}

}  // namespace vdla::accel
