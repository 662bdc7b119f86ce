#include "vdla/compiler/accel/alu_sequence.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "vdla/compiler/quant/requant.h"

namespace vdla::accel {

namespace {

bool allEqual(const std::vector<int32_t>& v) {
  return std::all_of(v.begin(), v.end(), [&](int32_t x) { return x == v.front(); });
}

bool fitsImm(int64_t v, const hw::HwConfig& cfg) {
  const int64_t lim = int64_t(1) << (cfg.alu_imm_bits - 1);
  return v >= -lim && v < lim;
}

// An operand from a per-channel vector: an immediate when uniform and small.
AluPass vectorPass(hw::AluOp op, AluPass::Dst dst, const std::vector<int32_t>& v, AluSequence& seq,
                   const hw::HwConfig& cfg) {
  AluPass p;
  p.op = op;
  p.dst = dst;
  if (allEqual(v) && fitsImm(v.front(), cfg)) {
    p.src = AluPass::Src::Imm;
    p.imm = v.front();
  } else {
    p.src = AluPass::Src::Param;
    p.param = static_cast<int>(seq.params.size());
    seq.params.push_back(v);
  }
  return p;
}

AluPass immPass(hw::AluOp op, int32_t imm, AluPass::Dst dst = AluPass::Dst::Acc) {
  AluPass p;
  p.op = op;
  p.dst = dst;
  p.src = AluPass::Src::Imm;
  p.imm = imm;
  return p;
}

bool isAll(const std::vector<int32_t>& v, int32_t x) {
  return std::all_of(v.begin(), v.end(), [&](int32_t y) { return y == x; });
}

// MULSHR's operand: m in the upper 26 bits, the shift in the low 6 (isa.h).
bool fitsMulShr(const std::vector<int32_t>& mult) {
  return std::all_of(mult.begin(), mult.end(), [](int32_t m) { return m >= -(1 << 25) && m < (1 << 25); });
}

int64_t rshr64(int64_t v, int s) { return s == 0 ? v : (v + (int64_t{1} << (s - 1))) >> s; }

// True when no int8 input can make t * mult leave int32, t being the
// accumulator after the init, the GEMM and the first shift: then MUL's
// wrapping product and MULSHR's 64-bit one are the same number. Parameters
// from chooseRequantParams always pass; arbitrary ones are checked here from
// the layer's own weights.
bool productsFitInt32(const ConvLayer& L, const std::vector<int32_t>& bias1) {
  if (L.shift1 < 0 || L.shift1 > 31 || L.o <= 0) return false;
  const int64_t per = static_cast<int64_t>(L.weights.size()) / L.o;
  for (int64_t o = 0; o < L.o; ++o) {
    const int64_t a = quant::accumulatorBound(L.weights.data() + o * per, per), b = bias1[static_cast<size_t>(o)];
    if (a + std::llabs(b) > std::numeric_limits<int32_t>::max()) return false;  // acc + bias1 could wrap
    const int64_t t = std::max(std::llabs(rshr64(b - a, L.shift1)), std::llabs(rshr64(b + a, L.shift1)));
    if (t * std::llabs(int64_t{L.mult[static_cast<size_t>(o)]}) > std::numeric_limits<int32_t>::max()) return false;
  }
  return true;
}
int32_t packMulShr(int32_t mult, int shift) { return int32_t(uint32_t(mult) << 6 | uint32_t(shift)); }

// CLIP's operand: hi in bits 15:8, lo in bits 7:0, as a sign-extended 16-bit immediate.
int32_t packClip(int32_t lo, int32_t hi) {
  return int16_t(uint16_t((uint32_t(hi) & 0xff) << 8 | (uint32_t(lo) & 0xff)));
}

// The float form: the bias as the accumulators' initial value, one FREQ
// with the binary32 scales as its operand and the zero point as its
// immediate (FREQ saturates to int8), and a CLIP only for narrower bounds.
AluSequence floatRequantSequence(const ConvLayer& L, const hw::HwConfig& cfg) {
  if (!cfg.float_requant)
    throw std::logic_error("layer '" + L.name + "': float requantisation on config '" + cfg.name +
                           "', which has no FREQ (the partition keeps such layers on the CPU)");
  if ((L.residual && !L.post_add) || L.shift1 != 0 || L.shift2 != 0 || L.wide_product || !isAll(L.bias2, 0))
    throw std::logic_error("layer '" + L.name + "': float_requant with a residual, shifts or bias2");
  AluSequence s;
  s.init.push_back(vectorPass(hw::AluOp::Mov, AluPass::Dst::Acc, L.bias1, s, cfg));
  AluPass freq;
  freq.op = hw::AluOp::FReq;
  freq.src = AluPass::Src::Param;  // the immediate holds the zero point
  freq.param = static_cast<int>(s.params.size());
  s.params.push_back(L.mult);
  freq.imm = L.y_zero_point;
  s.after.push_back(freq);
  if (L.clip_lo > -128 || L.clip_hi < 127) {
    if (cfg.alu_imm_bits >= 16) {
      s.after.push_back(immPass(hw::AluOp::Clip, packClip(L.clip_lo, L.clip_hi)));
    } else {
      s.after.push_back(immPass(hw::AluOp::Max, L.clip_lo));
      s.after.push_back(immPass(hw::AluOp::Min, L.clip_hi));
    }
  }
  return s;
}

}  // namespace

int AluSequence::residualPasses() const {
  int n = 0;
  for (const AluPass& p : after) n += p.dst == AluPass::Dst::Residual || p.src == AluPass::Src::Residual;
  return n;
}

namespace {

// The sequence as vdla.QConv spells it (the header's first form).
AluSequence buildUnfoldedSequence(const ConvLayer& L, const hw::HwConfig& cfg);

// The bias's own pass folded into a lone final pass with a parameter
// operand, as bias_clear: op(acc + bias, b) is what the bias pass, the GEMMs
// and the final pass computed (wrapping int32 addition commutes). The bias
// pass is the MOV that starts a tile or, when the tile starts from the
// residual loaded into its accumulators, the ADD after the residual's
// scaling: that load overwrites what the previous bias_clear pass zeroed.
AluSequence foldBiasIntoLastPass(AluSequence s, size_t channels, const hw::HwConfig& cfg) {
  if (!cfg.alu_bias_clear || s.init.empty() || s.after.size() != 1) return s;
  const AluPass& init = s.init.back();
  AluPass& last = s.after.front();
  const bool bias_pass =
      s.residual_in_acc ? init.op == hw::AluOp::Add : s.init.size() == 1 && init.op == hw::AluOp::Mov;
  if (!bias_pass || init.dst != AluPass::Dst::Acc || init.src == AluPass::Src::Residual ||
      last.dst != AluPass::Dst::Acc || last.src != AluPass::Src::Param ||
      (last.op != hw::AluOp::Req && last.op != hw::AluOp::FReq))
    return s;
  // The bias as a vector even when uniform: bias_clear reads it from ACC[src+1].
  if (init.src == AluPass::Src::Param) {
    last.bias_param = init.param;
  } else {
    last.bias_param = static_cast<int>(s.params.size());
    s.params.push_back(std::vector<int32_t>(channels, init.imm));
  }
  s.init.pop_back();
  s.bias_clear = true;
  return s;
}

}  // namespace

namespace {

// post_add: the requantised output Y0 (in the accumulators, clipped) and the
// residual region's R join as the fused addition defines them:
//   acc *= add_y_mult ; res *= residual_mult ; acc += res ; acc += add_offset ;
//   acc = RSHR(acc, add_shift) ; acc = CLIP(acc, -128, 127)
// the last two one REQ (multiplier 1) on a config with fused_requant. The
// sums stay inside int32 (conv_layer.cpp refuses layers whose could not), so
// the ALU's wrapping arithmetic is the definition's 64-bit one.
void appendPostAdd(const ConvLayer& L, AluSequence& s, const hw::HwConfig& cfg) {
  using Op = hw::AluOp;
  using D = AluPass::Dst;
  const size_t o = L.bias1.size();
  if (L.add_y_mult != 1) s.after.push_back(vectorPass(Op::Mul, D::Acc, std::vector<int32_t>(o, L.add_y_mult), s, cfg));
  if (!isAll(L.residual_mult, 1)) s.after.push_back(vectorPass(Op::Mul, D::Residual, L.residual_mult, s, cfg));
  AluPass add;
  add.op = Op::Add;
  add.src = AluPass::Src::Residual;
  s.after.push_back(add);
  if (L.add_offset != 0) s.after.push_back(vectorPass(Op::Add, D::Acc, std::vector<int32_t>(o, L.add_offset), s, cfg));
  if (cfg.alu_imm_bits >= 16 && cfg.fused_requant) {
    AluPass req;
    req.op = Op::Req;
    req.src = AluPass::Src::Param;
    req.param = static_cast<int>(s.params.size());
    s.params.push_back(std::vector<int32_t>(o, packMulShr(1, L.add_shift)));
    req.imm = packClip(-128, 127);
    s.after.push_back(req);
    return;
  }
  if (L.add_shift != 0) s.after.push_back(immPass(Op::Rshr, L.add_shift));
  if (cfg.alu_imm_bits >= 16) {
    s.after.push_back(immPass(Op::Clip, packClip(-128, 127)));
  } else {
    s.after.push_back(immPass(Op::Max, -128));
    s.after.push_back(immPass(Op::Min, 127));
  }
}

}  // namespace

AluSequence buildAluSequence(const ConvLayer& L, const hw::HwConfig& cfg) {
  AluSequence s = L.float_requant ? floatRequantSequence(L, cfg) : buildUnfoldedSequence(L, cfg);
  if (L.post_add) {
    if (!L.residual || L.residual_shift != 0)
      throw std::logic_error("layer '" + L.name + "': post_add without R or with residual_shift");
    appendPostAdd(L, s, cfg);
  }
  return foldBiasIntoLastPass(std::move(s), L.bias1.size(), cfg);
}

namespace {

AluSequence buildUnfoldedSequence(const ConvLayer& L, const hw::HwConfig& cfg) {
  AluSequence s;
  using Op = hw::AluOp;
  using D = AluPass::Dst;
  // Without a first shift, acc*mult + bias2 == (acc + bias2/mult)*mult exactly
  // in wrapping 32-bit arithmetic when mult divides bias2: the bias then
  // rides in the accumulator's initial value and one ALU pass disappears.
  std::vector<int32_t> bias1 = L.bias1, bias2 = L.bias2;
  if (L.shift1 == 0 && isAll(bias1, 0)) {
    bool divisible = true;
    for (size_t o = 0; o < bias2.size() && divisible; ++o) divisible = L.mult[o] != 0 && bias2[o] % L.mult[o] == 0;
    if (divisible)
      for (size_t o = 0; o < bias2.size(); ++o) {
        bias1[o] = bias2[o] / L.mult[o];
        bias2[o] = 0;
      }
  }
  const bool conv_residual = L.residual && !L.post_add;  // post_add's R joins after the requantisation
  if (conv_residual && L.wide_product) {
    // R is already in the accumulators; MOV would overwrite it.
    s.residual_in_acc = true;
    if (L.residual_shift > 0) {
      // R * residual_mult rounded back to accumulator units: one MULSHR.
      std::vector<int32_t> packed(L.residual_mult.size());
      for (size_t o = 0; o < packed.size(); ++o) packed[o] = packMulShr(L.residual_mult[o], L.residual_shift);
      s.init.push_back(vectorPass(Op::MulShr, D::Acc, packed, s, cfg));
    } else if (!isAll(L.residual_mult, 1)) {
      s.init.push_back(vectorPass(Op::Mul, D::Acc, L.residual_mult, s, cfg));
    }
    if (!isAll(bias1, 0)) s.init.push_back(vectorPass(Op::Add, D::Acc, bias1, s, cfg));
  } else {
    s.init.push_back(vectorPass(Op::Mov, D::Acc, bias1, s, cfg));
  }
  if (L.shift1 != 0) s.after.push_back(immPass(Op::Rshr, L.shift1));
  const bool unit_mult = isAll(L.mult, 1);
  // MUL then RSHR(shift2) is one MULSHR when nothing comes between them and
  // the multipliers fit its 26-bit field. The product is 64-bit there and
  // wrapping 32-bit in MUL; both agree because the requantisation parameters
  // keep every product within int32 (requant.h; checked in productsFitInt32).
  // A wide_product layer is defined by the 64-bit product: MULSHR is its
  // only form (conv_layer.cpp checks that its multipliers fit).
  const bool fuse_mul_shift = L.wide_product || (!unit_mult && L.shift2 > 0 && L.shift2 < 64 && !conv_residual &&
                                                 isAll(bias2, 0) && fitsMulShr(L.mult) && productsFitInt32(L, bias1));
  if (fuse_mul_shift) {
    std::vector<int32_t> packed(L.mult.size());
    for (size_t o = 0; o < packed.size(); ++o) packed[o] = packMulShr(L.mult[o], L.shift2);
    s.after.push_back(vectorPass(Op::MulShr, D::Acc, packed, s, cfg));
  } else {
    if (!unit_mult) s.after.push_back(vectorPass(Op::Mul, D::Acc, L.mult, s, cfg));
    if (conv_residual && !s.residual_in_acc) {
      if (!isAll(L.residual_mult, 1)) s.after.push_back(vectorPass(Op::Mul, D::Residual, L.residual_mult, s, cfg));
      AluPass add;
      add.op = Op::Add;
      add.src = AluPass::Src::Residual;
      s.after.push_back(add);
    }
    if (!isAll(bias2, 0)) s.after.push_back(vectorPass(Op::Add, D::Acc, bias2, s, cfg));
    if (L.shift2 != 0) s.after.push_back(immPass(Op::Rshr, L.shift2));
  }
  // The int8 output range is one CLIP (two signed bytes of the immediate).
  if (cfg.alu_imm_bits >= 16) {
    const int32_t clip = packClip(L.clip_lo, L.clip_hi);
    if (cfg.fused_requant && fuse_mul_shift) {
      // REQ does MULSHR and CLIP in one pass. Its immediate holds the bounds,
      // so the MULSHR operand becomes a parameter vector even when uniform.
      AluPass req = s.after.back();
      s.after.pop_back();
      if (req.src == AluPass::Src::Imm) {
        req.src = AluPass::Src::Param;
        req.param = static_cast<int>(s.params.size());
        s.params.push_back(std::vector<int32_t>(L.mult.size(), req.imm));
      }
      req.op = Op::Req;
      req.imm = clip;
      s.after.push_back(req);
    } else {
      s.after.push_back(immPass(Op::Clip, clip));
    }
  } else {
    s.after.push_back(immPass(Op::Max, L.clip_lo));
    s.after.push_back(immPass(Op::Min, L.clip_hi));
  }
  return s;
}

}  // namespace

}  // namespace vdla::accel
