#include "vdla/compiler/accel/alu_sequence.h"

#include <algorithm>

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

}  // namespace

int AluSequence::residualPasses() const {
  int n = 0;
  for (const AluPass& p : after) n += p.dst == AluPass::Dst::Residual || p.src == AluPass::Src::Residual;
  return n;
}

AluSequence buildAluSequence(const ConvLayer& L, const hw::HwConfig& cfg) {
  AluSequence s;
  using Op = hw::AluOp;
  using D = AluPass::Dst;
  // Without a first shift, acc*mult + bias2 == (acc + bias2/mult)*mult exactly
  // in wrapping 32-bit arithmetic when mult divides bias2: the bias then
  // rides in the accumulator's initial value and one ALU pass disappears.
  std::vector<int32_t> bias1 = L.bias1, bias2 = L.bias2;
  if (L.shift1 == 0 && isAll(bias1, 0)) {
    bool divisible = true;
    for (size_t o = 0; o < bias2.size() && divisible; ++o)
      divisible = L.mult[o] != 0 && bias2[o] % L.mult[o] == 0;
    if (divisible)
      for (size_t o = 0; o < bias2.size(); ++o) {
        bias1[o] = bias2[o] / L.mult[o];
        bias2[o] = 0;
      }
  }
  s.init = vectorPass(Op::Mov, D::Acc, bias1, s, cfg);
  if (L.shift1 != 0) s.after.push_back(immPass(Op::Rshr, L.shift1));
  if (!isAll(L.mult, 1)) s.after.push_back(vectorPass(Op::Mul, D::Acc, L.mult, s, cfg));
  if (L.residual) {
    if (!isAll(L.residual_mult, 1)) s.after.push_back(vectorPass(Op::Mul, D::Residual, L.residual_mult, s, cfg));
    AluPass add;
    add.op = Op::Add;
    add.src = AluPass::Src::Residual;
    s.after.push_back(add);
  }
  if (!isAll(bias2, 0)) s.after.push_back(vectorPass(Op::Add, D::Acc, bias2, s, cfg));
  if (L.shift2 != 0) s.after.push_back(immPass(Op::Rshr, L.shift2));
  s.after.push_back(immPass(Op::Max, L.clip_lo));
  s.after.push_back(immPass(Op::Min, L.clip_hi));
  return s;
}

}  // namespace vdla::accel
