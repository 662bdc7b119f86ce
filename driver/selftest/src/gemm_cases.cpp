#include <sstream>

#include "cases.h"
#include "vdla/selftest/device_program.h"

namespace vdla::selftest {

CaseResult gemmCase(CaseContext& ctx, const GemmShape& shape, bool double_buffer, int shift) {
  const hw::HwConfig& cfg = ctx.device.config();
  CaseResult result;  // named by the caller

  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> a(size_t(shape.m_blocks) * shape.k_blocks * cfg.batch * cfg.block_in);
  std::vector<int8_t> w(size_t(shape.n_blocks) * shape.k_blocks * cfg.block_out * cfg.block_in);
  for (auto& v : a) v = int8_t(byte(ctx.rng));
  for (auto& v : w) v = int8_t(byte(ctx.rng));

  ScopedBuffers buffers(ctx.device);
  GemmBuffers addr;
  addr.inp = buffers.upload(a).phys_addr;
  addr.wgt = buffers.upload(w).phys_addr;
  const size_t out_bytes = size_t(shape.m_blocks) * shape.n_blocks * cfg.entryBytes(hw::Memory::Output);
  driver::Buffer out = buffers.allocate(out_bytes);
  addr.out = out.phys_addr;
  const GemmTiling tiling = chooseGemmTiling(cfg, shape, double_buffer);
  // The micro-op buffer address is only known after upload, and the program
  // refers to it, so the kernels are built once to size them.
  GemmProgram sizing = buildBlockedGemm(cfg, shape, tiling, shift, addr);
  addr.uop = uploadUops(ctx.device, buffers, sizing.uops).phys_addr;
  GemmProgram prog = buildBlockedGemm(cfg, shape, tiling, shift, addr);

  driver::RunResult run = runProgram(ctx.device, buffers, prog.instructions, ctx.timeout);
  result.stats = run.stats;
  if (!run.ok()) {
    result.detail = run.message;
    return result;
  }
  std::vector<int8_t> expected = referenceBlockedGemm(cfg, shape, a, w, shift);
  std::vector<int8_t> got = buffers.download<int8_t>(out, out_bytes);
  if (!sameElements(expected, got, "C", result.detail)) return result;
  result.passed = true;
  std::ostringstream detail;
  detail << "tiles " << tiling.tm << "x" << tiling.tn << "x" << tiling.tk << " blocks, shift " << shift << ", "
         << prog.instructions.size() << " instructions, " << run.stats.gemm_macs << " MACs";
  result.detail = detail.str();
  return result;
}

}  // namespace vdla::selftest
