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
  s.init = vectorPass(Op::Mov, D::Acc, L.bias1, s, cfg);
  if (L.shift1 != 0) s.after.push_back(immPass(Op::Rshr, L.shift1));
  if (!isAll(L.mult, 1)) s.after.push_back(vectorPass(Op::Mul, D::Acc, L.mult, s, cfg));
  if (L.residual) {
    if (!isAll(L.residual_mult, 1)) s.after.push_back(vectorPass(Op::Mul, D::Residual, L.residual_mult, s, cfg));
    AluPass add;
    add.op = Op::Add;
    add.src = AluPass::Src::Residual;
    s.after.push_back(add);
  }
  if (!isAll(L.bias2, 0)) s.after.push_back(vectorPass(Op::Add, D::Acc, L.bias2, s, cfg));
  if (L.shift2 != 0) s.after.push_back(immPass(Op::Rshr, L.shift2));
  s.after.push_back(immPass(Op::Max, L.clip_lo));
  s.after.push_back(immPass(Op::Min, L.clip_hi));
  return s;
}

}  // namespace vdla::accel
