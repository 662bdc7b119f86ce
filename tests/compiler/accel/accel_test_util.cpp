#include "accel_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "vdla/compiler/quant/requant.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/runtime/accel/device_program.h"
#include "vdla/runtime/accel/packed_layout.h"

namespace vdla::accel::test {

namespace {

int64_t uniform(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

int32_t wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

int32_t rshr(int32_t v, int32_t s) {
  if (s == 0) return v;
  const int64_t r = (int64_t(v) + (int64_t(1) << (s - 1)));
  return static_cast<int32_t>(r >> s);  // floor division by 2^s
}

std::vector<int32_t> randomVector(std::mt19937& rng, int64_t n, int64_t lo, int64_t hi, bool uniform_values) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  const int32_t first = static_cast<int32_t>(uniform(rng, lo, hi));
  for (auto& x : v) x = uniform_values ? first : static_cast<int32_t>(uniform(rng, lo, hi));
  return v;
}

}  // namespace

ConvLayer randomLayer(std::mt19937& rng, bool allow_residual) {
  ConvLayer L;
  L.name = "random_conv";
  L.n = uniform(rng, 1, 3);
  L.c = uniform(rng, 1, 40);
  L.o = uniform(rng, 1, 40);
  L.kh = uniform(rng, 0, 2) * 2 + 1;
  L.kw = uniform(rng, 0, 1) ? L.kh : uniform(rng, 1, 3);
  L.sh = uniform(rng, 1, 2);
  L.sw = uniform(rng, 1, 2);
  L.pad_top = uniform(rng, 0, L.kh - 1);
  L.pad_bottom = uniform(rng, 0, L.kh - 1);
  L.pad_left = uniform(rng, 0, L.kw - 1);
  L.pad_right = uniform(rng, 0, L.kw - 1);
  L.h = uniform(rng, std::max<int64_t>(1, L.kh - L.pad_top - L.pad_bottom), 14);
  L.w = uniform(rng, std::max<int64_t>(1, L.kw - L.pad_left - L.pad_right), 14);
  L.oh = (L.h + L.pad_top + L.pad_bottom - L.kh) / L.sh + 1;
  L.ow = (L.w + L.pad_left + L.pad_right - L.kw) / L.sw + 1;
  // A third of the layers pad with a nonzero value (an input zero point).
  if (uniform(rng, 0, 2) == 0) L.pad_value = static_cast<int32_t>(uniform(rng, -128, 127));
  L.residual = allow_residual && uniform(rng, 0, 2) == 0;
  L.shift1 = static_cast<int32_t>(uniform(rng, 0, 1) ? 0 : uniform(rng, 1, 6));
  L.shift2 = static_cast<int32_t>(uniform(rng, 0, 14));
  L.clip_lo = static_cast<int32_t>(uniform(rng, -128, 0));
  L.clip_hi = static_cast<int32_t>(uniform(rng, L.clip_lo, 127));
  // Each parameter is neutral, uniform (an immediate) or per-channel (a vector).
  auto param = [&](int64_t lo, int64_t hi, int32_t neutral) {
    switch (uniform(rng, 0, 2)) {
      case 0: return std::vector<int32_t>(static_cast<size_t>(L.o), neutral);
      case 1: return randomVector(rng, L.o, lo, hi, true);
      default: return randomVector(rng, L.o, lo, hi, false);
    }
  };
  L.bias1 = param(-5000, 5000, 0);
  L.mult = param(-3000, 70000, 1);
  L.bias2 = param(-100000, 100000, 0);
  if (L.residual) L.residual_mult = param(-40000, 40000, 1);
  if (uniform(rng, 0, 3) == 0) {
    // The wide form (one MULSHR; a residual starts in the accumulators):
    // multipliers in MULSHR's 26 bits, shifts beyond 31, no bias2.
    L.wide_product = true;
    L.mult = param(-(1 << 25), (1 << 25) - 1, 1);
    L.shift2 = static_cast<int32_t>(uniform(rng, 0, 1) ? uniform(rng, 0, 62) : uniform(rng, 10, 24));
    L.bias2.assign(static_cast<size_t>(L.o), 0);
    if (L.residual && uniform(rng, 0, 1)) {
      // A residual multiplier with fractional bits: R * rm rounded by a MULSHR.
      L.residual_shift = static_cast<int32_t>(uniform(rng, 1, 40));
      L.residual_mult = param(-(1 << 25), (1 << 25) - 1, 1);
    }
  }
  // A third of the layers are grouped: depthwise, or g groups of several channels.
  const int64_t kind = uniform(rng, 0, 5);
  if (kind == 0) {
    L.o = L.c;
    L.group = L.c;
  } else if (kind == 1) {
    const int64_t g = uniform(rng, 2, 4);
    L.c = g * uniform(rng, 1, 12);
    L.o = g * uniform(rng, 1, 12);
    L.group = g;
  }
  auto resize = [&](std::vector<int32_t>& v) {
    if (!v.empty()) v.resize(static_cast<size_t>(L.o), v.front());
  };
  for (auto* v : {&L.bias1, &L.mult, &L.bias2, &L.residual_mult}) resize(*v);
  L.weights.resize(static_cast<size_t>(L.o * (L.c / L.group) * L.kh * L.kw));
  for (auto& w : L.weights) w = static_cast<int8_t>(uniform(rng, -128, 127));
  return L;
}

ConvLayer randomDepthwiseLayer(std::mt19937& rng, int64_t max_kw, int64_t max_stride) {
  ConvLayer L = randomLayer(rng);
  L.name = "random_depthwise";
  L.c = L.o = L.group = uniform(rng, 0, 3) == 0 ? 16 * uniform(rng, 1, 3) : uniform(rng, 1, 70);
  L.kh = uniform(rng, 1, 5);
  L.kw = uniform(rng, 1, max_kw);
  L.sh = uniform(rng, 1, max_stride);
  L.sw = uniform(rng, 1, max_stride);
  L.pad_top = uniform(rng, 0, L.kh - 1);
  L.pad_bottom = uniform(rng, 0, L.kh - 1);
  L.pad_left = uniform(rng, 0, L.kw - 1);
  L.pad_right = uniform(rng, 0, L.kw - 1);
  L.h = uniform(rng, std::max<int64_t>(1, L.kh - L.pad_top - L.pad_bottom), 20);
  L.w = uniform(rng, std::max<int64_t>(1, L.kw - L.pad_left - L.pad_right), 24);
  L.oh = (L.h + L.pad_top + L.pad_bottom - L.kh) / L.sh + 1;
  L.ow = (L.w + L.pad_left + L.pad_right - L.kw) / L.sw + 1;
  // Half of them pad with a nonzero value (MobileNetV2's zero points).
  L.pad_value = uniform(rng, 0, 1) == 0 ? static_cast<int32_t>(uniform(rng, -128, 127)) : 0;
  // Per-channel vectors keep their kind: a uniform one stays uniform.
  for (auto* v : {&L.bias1, &L.mult, &L.bias2, &L.residual_mult}) {
    if (v->empty()) continue;
    const std::vector<int32_t> old = *v;
    v->resize(static_cast<size_t>(L.o));
    for (size_t i = 0; i < v->size(); ++i) (*v)[i] = old[i % old.size()];
  }
  L.weights.resize(static_cast<size_t>(L.o * L.kh * L.kw));
  for (auto& w : L.weights) w = static_cast<int8_t>(uniform(rng, -128, 127));
  return L;
}

LayerData randomData(const ConvLayer& L, std::mt19937& rng) {
  LayerData d;
  d.x = rt::Tensor(rt::DType::I8, {L.n, L.c, L.h, L.w});
  for (int64_t i = 0; i < d.x.numElements(); ++i) d.x.data<int8_t>()[i] = static_cast<int8_t>(uniform(rng, -128, 127));
  if (L.residual) {
    d.r = rt::Tensor(rt::DType::I8, {L.n, L.o, L.oh, L.ow});
    for (int64_t i = 0; i < d.r.numElements(); ++i)
      d.r.data<int8_t>()[i] = static_cast<int8_t>(uniform(rng, -128, 127));
  }
  return d;
}

void floatRequantLike(ConvLayer& L, std::mt19937& rng) {
  const int64_t per = static_cast<int64_t>(L.weights.size()) / L.o;
  std::uniform_int_distribution<int32_t> bias(-30000, 30000), zp(-128, 127);
  L.float_requant = true;
  L.y_zero_point = zp(rng);
  L.shift1 = L.shift2 = 0;
  L.wide_product = false;
  L.bias2.assign(static_cast<size_t>(L.o), 0);
  for (int64_t o = 0; o < L.o; ++o) {
    const double bound = double(quant::accumulatorBound(L.weights.data() + o * per, per)) + 30000;
    const float scale = static_cast<float>(150.0 / bound * std::uniform_real_distribution<double>(0.5, 4.0)(rng));
    std::memcpy(&L.mult[static_cast<size_t>(o)], &scale, sizeof scale);
    L.bias1[static_cast<size_t>(o)] = bias(rng);
  }
}

rt::Tensor scalarF32(float v) {
  rt::Tensor t(rt::DType::F32, {});
  t.data<float>()[0] = v;
  return t;
}

rt::Tensor scalarI8(int8_t v) {
  rt::Tensor t(rt::DType::I8, {});
  t.data<int8_t>()[0] = v;
  return t;
}

rt::Tensor naiveQConv(const ConvLayer& L, const LayerData& d) {
  rt::Tensor y(rt::DType::I8, {L.n, L.o, L.oh, L.ow});
  const int8_t* x = d.x.data<int8_t>();
  for (int64_t n = 0; n < L.n; ++n)
    for (int64_t o = 0; o < L.o; ++o)
      for (int64_t oy = 0; oy < L.oh; ++oy)
        for (int64_t ox = 0; ox < L.ow; ++ox) {
          int64_t acc = 0;
          const int64_t cg = L.c / L.group, g = o / (L.o / L.group);
          for (int64_t cl = 0; cl < cg; ++cl)
            for (int64_t ky = 0; ky < L.kh; ++ky)
              for (int64_t kx = 0; kx < L.kw; ++kx) {
                const int64_t iy = oy * L.sh + ky - L.pad_top, ix = ox * L.sw + kx - L.pad_left;
                const bool inside = iy >= 0 && iy < L.h && ix >= 0 && ix < L.w;
                acc += int64_t(L.weights[static_cast<size_t>(((o * cg + cl) * L.kh + ky) * L.kw + kx)]) *
                       (inside ? x[((n * L.c + g * cg + cl) * L.h + iy) * L.w + ix] : L.pad_value);
              }
          const size_t oi = static_cast<size_t>(o);
          const size_t yi = static_cast<size_t>(((n * L.o + o) * L.oh + oy) * L.ow + ox);
          const int8_t r = L.residual ? d.r.data<int8_t>()[yi] : 0;
          const bool r_in_conv = L.residual && !L.post_add;  // post_add's R joins after the requantisation
          // The requantised value v, clipped; post_add then adds R as a quantised addition.
          auto emit = [&](int32_t v) {
            v = std::clamp(v, L.clip_lo, L.clip_hi);
            if (L.post_add) {
              int64_t sum = int64_t(v) * L.add_y_mult + int64_t(r) * L.residual_mult[oi] + L.add_offset;
              if (L.add_shift > 0) sum = (sum + (int64_t{1} << (L.add_shift - 1))) >> L.add_shift;
              v = static_cast<int32_t>(std::clamp<int64_t>(sum, -128, 127));
            }
            y.data<int8_t>()[yi] = static_cast<int8_t>(v);
          };
          // The wide form adds the residual to the accumulator.
          const int64_t r_prod = L.residual ? int64_t(r) * L.residual_mult[oi] : 0;
          const int64_t in_acc =
              r_in_conv && L.wide_product
                  ? wrap(L.residual_shift == 0 ? r_prod
                                               : (r_prod + (int64_t{1} << (L.residual_shift - 1))) >> L.residual_shift)
                  : 0;
          int32_t t = rshr(wrap(int64_t(wrap(int64_t(wrap(acc)) + in_acc)) + L.bias1[oi]), L.shift1);
          if (L.float_requant) {  // the host's binary32 arithmetic, as onnxruntime computes it
            float scale = 0;
            std::memcpy(&scale, &L.mult[oi], sizeof scale);
            const float product = static_cast<float>(t) * scale;
            const int32_t q = static_cast<int32_t>(std::nearbyint(std::clamp(product, -1e6f, 1e6f))) + L.y_zero_point;
            emit(std::clamp(q, -128, 127));
            continue;
          }
          if (L.wide_product) {  // the exact 64-bit product, shifted, then wrapped
            const int64_t prod = int64_t(t) * L.mult[oi];
            const int64_t shifted = L.shift2 == 0 ? prod : (prod + (int64_t{1} << (L.shift2 - 1))) >> L.shift2;
            emit(static_cast<int32_t>(wrap(shifted)));
            continue;
          }
          int64_t u = wrap(int64_t(t) * L.mult[oi]);
          if (r_in_conv) u = wrap(u + wrap(int64_t(r) * L.residual_mult[oi]));
          u = wrap(u + L.bias2[oi]);
          emit(rshr(static_cast<int32_t>(u), L.shift2));
        }
  return y;
}

rt::Tensor runProgram(driver::Device& dev, const ConvProgram& p, const std::vector<Upload>& uploads,
                      const rt::Shape& y_shape, sim::ExecutionStats* stats) {
  const hw::HwConfig& cfg = dev.config();
  driver::Buffer consts = dev.allocate(std::max<size_t>(p.constants.size(), 1));
  driver::Buffer io = dev.allocate(static_cast<uint64_t>(p.io_bytes));
  if (!p.constants.empty()) dev.write(consts, 0, p.constants.data(), p.constants.size());
  for (const Upload& u : uploads) {
    const auto g = rt::accel::packedGeometry(u.tensor.shape(), cfg.batch, u.block);
    std::vector<int8_t> bytes(static_cast<size_t>(g.bytes()));
    rt::accel::packActivation(u.tensor, g, bytes.data());
    dev.write(io, static_cast<uint64_t>(u.offset), bytes.data(), bytes.size());
  }
  const std::vector<uint8_t> stream = rt::accel::relocateProgram(p.program, cfg, consts.phys_addr, io.phys_addr);
  driver::Buffer insns = dev.allocate(stream.size());
  dev.write(insns, 0, stream.data(), stream.size());
  driver::RunResult r =
      dev.run(insns.phys_addr, static_cast<uint32_t>(p.program.insns.size()), std::chrono::minutes(5));
  if (!r.ok()) throw std::runtime_error("device run failed: " + r.message);
  if (stats) *stats = r.stats;
  rt::Tensor y(rt::DType::I8, y_shape);
  const auto g = rt::accel::packedGeometry(y.shape(), cfg.batch, p.y_block);
  std::vector<int8_t> bytes(static_cast<size_t>(g.bytes()));
  dev.read(io, static_cast<uint64_t>(p.y_offset), bytes.data(), bytes.size());
  rt::accel::unpackActivation(bytes.data(), g, y);
  for (auto* b : {&consts, &io, &insns}) dev.release(*b);
  return y;
}

void fillAccumulators(driver::Device& dev, std::mt19937& rng) {
  const hw::HwConfig& cfg = dev.config();
  const uint32_t depth = cfg.depth(hw::Memory::Acc), entry = cfg.entryBytes(hw::Memory::Acc);
  ConvProgram p;
  p.constants.resize(size_t(depth) * entry);
  for (uint8_t& b : p.constants) b = static_cast<uint8_t>(rng());
  p.program.name = "fill accumulators";
  p.program.insns = {hw::makeLoad(hw::Memory::Acc, 0, 0, 1, depth, depth), hw::makeFinish()};
  p.program.regions = {rt::accel::Region::Constants, rt::accel::Region::None};
  p.io_bytes = 4096;
  p.y_block = cfg.block_out;
  runProgram(dev, p, {}, {1, 1, 1, 1});
}

rt::Tensor runOnDevice(driver::Device& dev, const ConvLayer& L, const ConvProgram& p, const LayerData& d,
                       sim::ExecutionStats* stats) {
  const hw::HwConfig& cfg = dev.config();
  std::vector<Upload> uploads = {
      {L.host.identity() ? d.x : rt::accel::applyInputTransform(d.x, L.host), cfg.block_in, p.x_offset}};
  if (L.residual) uploads.push_back({d.r, p.y_block, p.r_offset});
  return runProgram(dev, p, uploads, {L.n, L.o, L.oh, L.ow}, stats);
}

}  // namespace vdla::accel::test
