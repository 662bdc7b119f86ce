// ALU cases: each operation on random 32-bit accumulators (edge values
// included) with an immediate or a tensor operand. STORE only writes the int8
// output memory, so the full 32-bit result is observed as four byte planes:
// the result is copied (MOV) to four scratch regions, shifted right by 0, 8, 16
// and 24 (SHR), and each plane is stored.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <random>

#include "cases.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/selftest/device_program.h"

namespace vdla::selftest {
namespace {

// The ISA's ALU semantics restated plainly, in 64-bit arithmetic.
int32_t wrap32(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }

int32_t referenceAlu(hw::AluOp op, int32_t a, int32_t b, int32_t imm) {
  const int64_t s = std::clamp<int64_t>(b, -31, 31);
  switch (op) {
    case hw::AluOp::Min: return a < b ? a : b;
    case hw::AluOp::Max: return a > b ? a : b;
    case hw::AluOp::Add: return wrap32(int64_t(a) + b);
    case hw::AluOp::Mul: return wrap32(int64_t(a) * b);
    case hw::AluOp::Shr: return s >= 0 ? wrap32(int64_t(a) >> s) : wrap32(int64_t(a) * (int64_t(1) << -s));
    case hw::AluOp::Rshr:
      if (s > 0) return wrap32((int64_t(a) + (int64_t(1) << (s - 1))) >> s);
      return wrap32(int64_t(a) * (int64_t(1) << -s));
    case hw::AluOp::Mov: return b;
    case hw::AluOp::Clip: {  // max first, so hi wins when lo > hi
      const int32_t lo = int8_t(uint8_t(b)), hi = int8_t(uint8_t(b >> 8));
      return std::min(std::max(a, lo), hi);
    }
    case hw::AluOp::MulShr: {
      const int64_t m = b >> 6, sh = b & 63;
      const int64_t rounding = sh > 0 ? int64_t(1) << (sh - 1) : 0;
      return wrap32((int64_t(a) * m + rounding) >> sh);
    }
    case hw::AluOp::Req:  // MULSHR by b, then CLIP by the instruction's imm
      return referenceAlu(hw::AluOp::Clip, referenceAlu(hw::AluOp::MulShr, a, b, imm), imm, imm);
    case hw::AluOp::FReq: {  // in the host's float arithmetic (b a normal binary32, as aluCase draws it)
      float scale = 0;
      std::memcpy(&scale, &b, sizeof scale);
      const float product = float(a) * scale;
      const double q = std::nearbyint(std::clamp(double(product), -0x1p40, 0x1p40));
      return int32_t(std::clamp<int64_t>(int64_t(q) + imm, -128, 127));
    }
  }
  return 0;
}

// FREQ's operand: a normal binary32 of either sign between 2^-27 and 2^13,
// so that accumulators of every size land inside the int8 range somewhere.
int32_t normalScale(std::mt19937_64& rng) {
  const uint32_t exponent = 100 + uint32_t(rng() % 41), mantissa = uint32_t(rng()) & 0x7fffffu;
  return int32_t((uint32_t(rng() & 1) << 31) | (exponent << 23) | mantissa);
}

bool isShift(hw::AluOp op) { return op == hw::AluOp::Shr || op == hw::AluOp::Rshr; }

}  // namespace

CaseResult aluCase(CaseContext& ctx, hw::AluOp op, bool use_imm) {
  const hw::HwConfig& cfg = ctx.device.config();
  CaseResult result;
  result.name = std::string("alu-") + hw::aluOpName(op) + (use_imm ? "-imm" : "-tensor");
  const uint32_t lanes = cfg.batch * cfg.block_out;
  const uint32_t n = std::min<uint32_t>(16, cfg.depth(hw::Memory::Acc) / 6);  // entries per operand

  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> shift(-40, 40);
  const int32_t edges[] = {0, -1, 1, INT32_MIN, INT32_MAX, 127, -128, 255};
  std::vector<int32_t> a(size_t(n) * lanes), b(size_t(n) * lanes);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = i < std::size(edges) ? edges[i] : any(ctx.rng);
    b[i] = isShift(op) ? shift(ctx.rng) : (i < std::size(edges) ? edges[std::size(edges) - 1 - i] : any(ctx.rng));
    if (op == hw::AluOp::FReq) b[i] = normalScale(ctx.rng);
  }
  const int32_t imm_max = int32_t((int64_t(1) << (cfg.alu_imm_bits - 1)) - 1);
  std::uniform_int_distribution<int32_t> imm_dist(-imm_max - 1, imm_max);
  std::uniform_int_distribution<int32_t> zero_point(-128, 127);
  const int32_t imm = isShift(op) ? shift(ctx.rng) : (op == hw::AluOp::FReq ? zero_point(ctx.rng) : imm_dist(ctx.rng));

  ScopedBuffers buffers(ctx.device);
  driver::Buffer a_buf = buffers.upload(a), b_buf = buffers.upload(b);
  const uint32_t out_entry = cfg.entryBytes(hw::Memory::Output);
  driver::Buffer out = buffers.allocate(size_t(4) * n * out_entry);
  // Accumulator map: a at [0,n), b at [n,2n), byte-plane p scratch at [(2+p)n, (3+p)n).
  std::vector<hw::Uop> uops = {{0, n, 0}, {2 * n, 0, 0}};
  for (uint32_t p = 0; p < 4; ++p) uops.push_back({(2 + p) * n, 0, 0});
  driver::Buffer uop_buf = uploadUops(ctx.device, buffers, uops);

  const uint32_t acc_entry = cfg.entryBytes(hw::Memory::Acc);
  std::vector<hw::Instruction> prog;
  prog.push_back(hw::makeLoad(hw::Memory::Uop, 0, uop_buf.phys_addr / hw::kUopBytes, 1, uint32_t(uops.size()),
                              uint32_t(uops.size())));
  prog.push_back(hw::makeLoad(hw::Memory::Acc, 0, a_buf.phys_addr / acc_entry, 1, n, n));
  prog.push_back(hw::makeLoad(hw::Memory::Acc, n, b_buf.phys_addr / acc_entry, 1, n, n));
  hw::LoopNest over_a{0, 1, 1, n, 0, 1, 0, 1};
  hw::Instruction alu = use_imm ? hw::makeAluImm(op, over_a, imm) : hw::makeAlu(op, over_a);
  if (op == hw::AluOp::Req || op == hw::AluOp::FReq) alu.imm = imm;  // bounds or zero point, either operand
  prog.push_back(alu);
  hw::LoopNest copy_planes{1, 2, 4, n, n, 1, 0, 1};
  prog.push_back(hw::makeAlu(hw::AluOp::Mov, copy_planes));
  for (uint32_t p = 0; p < 4; ++p) {
    hw::Instruction shr = hw::makeAluImm(hw::AluOp::Shr, {2 + p, 3 + p, 1, n, 0, 1, 0, 1}, int32_t(8 * p));
    shr.push_next = true;
    prog.push_back(shr);
    hw::Instruction store = hw::makeStore((2 + p) * n, out.phys_addr / out_entry + p * n, 1, n, n);
    store.pop_prev = true;
    prog.push_back(store);
  }
  prog.push_back(hw::makeFinish());

  driver::RunResult run = runProgram(ctx.device, buffers, prog, ctx.timeout);
  result.stats = run.stats;
  if (!run.ok()) {
    result.detail = run.message;
    return result;
  }
  std::vector<int32_t> expected(a.size()), got(a.size());
  for (size_t i = 0; i < a.size(); ++i) expected[i] = referenceAlu(op, a[i], use_imm ? imm : b[i], imm);
  std::vector<uint8_t> planes = buffers.download<uint8_t>(out, size_t(4) * n * out_entry);
  for (size_t i = 0; i < a.size(); ++i) {
    uint32_t v = 0;
    for (uint32_t p = 0; p < 4; ++p) v |= uint32_t(planes[p * a.size() + i]) << (8 * p);
    got[i] = int32_t(v);
  }
  if (!sameElements(expected, got, "result", result.detail)) return result;
  result.passed = true;
  result.detail = std::to_string(a.size()) + " elements" + (use_imm ? ", imm " + std::to_string(imm) : "");
  return result;
}

}  // namespace vdla::selftest
