// Padded loads: a random 2-D block with random padding on all four sides is
// loaded and read back through the datapath, and compared with a padded copy
// made by the reference.
//  - INP is observed through GEMM with an identity weight tile, so out[o] is
//    inp[o] for o < min(block_in, block_out).
//  - ACC and ACC8 are observed through ALU ADD 0, whose output byte is the low
//    byte of each accumulator.
#include <algorithm>

#include "cases.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/selftest/device_program.h"

namespace vdla::selftest {
namespace {

struct Block {
  uint32_t y, x, stride;
  hw::Padding pad;
  uint32_t rows() const { return pad.top + y + pad.bottom; }
  uint32_t cols() const { return pad.left + x + pad.right; }
};

// A random block whose padded size fits `capacity` entries.
Block randomBlock(std::mt19937_64& rng, uint32_t capacity, uint32_t max_pad) {
  std::uniform_int_distribution<uint32_t> size(1, 5), pad(0, max_pad), extra(0, 3);
  for (;;) {
    Block b{size(rng), size(rng), 0, {pad(rng), pad(rng), pad(rng), pad(rng)}};
    b.stride = b.x + extra(rng);
    if (b.rows() * b.cols() <= capacity) return b;
  }
}

// Reference: entry e of the padded block is DRAM entry (r-top)*stride+(c-left)
// or zero.
template <class T>
std::vector<T> padReference(const Block& b, const std::vector<T>& dram, uint32_t entry_elems) {
  std::vector<T> out(size_t(b.rows()) * b.cols() * entry_elems, T(0));
  for (uint32_t r = 0; r < b.y; ++r)
    for (uint32_t c = 0; c < b.x; ++c)
      std::copy_n(&dram[(size_t(r) * b.stride + c) * entry_elems], entry_elems,
                  &out[((size_t(r) + b.pad.top) * b.cols() + c + b.pad.left) * entry_elems]);
  return out;
}

uint32_t maxPad(const hw::HwConfig& cfg) { return std::min<uint32_t>(3, (1u << cfg.pad_bits) - 1); }

}  // namespace

CaseResult paddedInputLoadCase(CaseContext& ctx) {
  const hw::HwConfig& cfg = ctx.device.config();
  CaseResult result;
  result.name = "padded-load-INP";
  const uint32_t in_elems = cfg.batch * cfg.block_in, out_elems = cfg.batch * cfg.block_out;
  const uint32_t capacity = std::min(cfg.depth(hw::Memory::Input), cfg.depth(hw::Memory::Acc));
  const Block blk = randomBlock(ctx.rng, capacity, maxPad(cfg));

  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> data(size_t(blk.y) * blk.stride * in_elems);
  for (auto& v : data) v = int8_t(byte(ctx.rng));
  std::vector<int8_t> identity(size_t(cfg.block_out) * cfg.block_in, 0);
  for (uint32_t o = 0; o < std::min(cfg.block_in, cfg.block_out); ++o) identity[o * cfg.block_in + o] = 1;

  ScopedBuffers buffers(ctx.device);
  driver::Buffer in_buf = buffers.upload(data), w_buf = buffers.upload(identity);
  const uint32_t entries = blk.rows() * blk.cols();
  driver::Buffer out = buffers.allocate(size_t(entries) * out_elems);
  driver::Buffer uop_buf = uploadUops(ctx.device, buffers, {{0, 0, 0}});

  std::vector<hw::Instruction> prog;
  prog.push_back(hw::makeLoad(hw::Memory::Uop, 0, uop_buf.phys_addr / hw::kUopBytes, 1, 1, 1));
  prog.push_back(hw::makeLoad(hw::Memory::Input, 0, in_buf.phys_addr / cfg.entryBytes(hw::Memory::Input), blk.y, blk.x,
                              blk.stride, blk.pad));
  hw::Instruction wload =
      hw::makeLoad(hw::Memory::Weight, 0, w_buf.phys_addr / cfg.entryBytes(hw::Memory::Weight), 1, 1, 1);
  wload.push_next = true;
  prog.push_back(wload);
  hw::LoopNest each_entry{0, 1, 1, entries, 0, 1, 0, 1, 0, 0};
  prog.push_back(hw::makeGemm(each_entry, /*reset=*/true));
  hw::Instruction gemm = hw::makeGemm(each_entry);
  gemm.pop_prev = gemm.push_next = true;
  prog.push_back(gemm);
  hw::Instruction store = hw::makeStore(0, out.phys_addr / cfg.entryBytes(hw::Memory::Output), 1, entries, entries);
  store.pop_prev = true;
  prog.push_back(store);
  prog.push_back(hw::makeFinish());

  driver::RunResult run = runProgram(ctx.device, buffers, prog, ctx.timeout);
  result.stats = run.stats;
  if (!run.ok()) {
    result.detail = run.message;
    return result;
  }
  std::vector<int8_t> padded = padReference(blk, data, in_elems);
  std::vector<int8_t> expected(size_t(entries) * out_elems, 0);
  for (uint32_t e = 0; e < entries; ++e)
    for (uint32_t b = 0; b < cfg.batch; ++b)
      for (uint32_t o = 0; o < std::min(cfg.block_in, cfg.block_out); ++o)
        expected[(size_t(e) * cfg.batch + b) * cfg.block_out + o] =
            padded[(size_t(e) * cfg.batch + b) * cfg.block_in + o];
  if (!sameElements(expected, buffers.download<int8_t>(out, expected.size()), "padded INP", result.detail))
    return result;
  result.passed = true;
  result.detail = std::to_string(blk.y) + "x" + std::to_string(blk.x) + " block, stride " + std::to_string(blk.stride) +
                  ", pad " + std::to_string(blk.pad.top) + "," + std::to_string(blk.pad.bottom) + "," +
                  std::to_string(blk.pad.left) + "," + std::to_string(blk.pad.right);
  return result;
}

CaseResult paddedAccLoadCase(CaseContext& ctx, hw::Memory mem) {
  const hw::HwConfig& cfg = ctx.device.config();
  CaseResult result;
  result.name = std::string("padded-load-") + hw::memoryName(mem);
  const uint32_t elems = cfg.batch * cfg.block_out;
  const Block blk = randomBlock(ctx.rng, cfg.depth(hw::Memory::Acc), maxPad(cfg));

  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::vector<int32_t> values(size_t(blk.y) * blk.stride * elems);
  for (auto& v : values) v = mem == hw::Memory::Acc8 ? int8_t(any(ctx.rng)) : any(ctx.rng);
  ScopedBuffers buffers(ctx.device);
  driver::Buffer in_buf = mem == hw::Memory::Acc8 ? buffers.upload(std::vector<int8_t>(values.begin(), values.end()))
                                                  : buffers.upload(values);
  const uint32_t entries = blk.rows() * blk.cols();
  driver::Buffer out = buffers.allocate(size_t(entries) * elems);
  driver::Buffer uop_buf = uploadUops(ctx.device, buffers, {{0, 0, 0}});

  std::vector<hw::Instruction> prog;
  prog.push_back(hw::makeLoad(hw::Memory::Uop, 0, uop_buf.phys_addr / hw::kUopBytes, 1, 1, 1));
  prog.push_back(hw::makeLoad(mem, 0, in_buf.phys_addr / cfg.entryBytes(mem), blk.y, blk.x, blk.stride, blk.pad));
  hw::Instruction add = hw::makeAluImm(hw::AluOp::Add, {0, 1, 1, entries, 0, 1, 0, 1}, 0);
  add.push_next = true;
  prog.push_back(add);
  hw::Instruction store = hw::makeStore(0, out.phys_addr / cfg.entryBytes(hw::Memory::Output), 1, entries, entries);
  store.pop_prev = true;
  prog.push_back(store);
  prog.push_back(hw::makeFinish());

  driver::RunResult run = runProgram(ctx.device, buffers, prog, ctx.timeout);
  result.stats = run.stats;
  if (!run.ok()) {
    result.detail = run.message;
    return result;
  }
  std::vector<int32_t> padded = padReference(blk, values, elems);
  std::vector<int8_t> expected(padded.size());
  for (size_t i = 0; i < padded.size(); ++i) expected[i] = int8_t(uint8_t(uint32_t(padded[i]) & 0xff));
  if (!sameElements(expected, buffers.download<int8_t>(out, expected.size()), result.name, result.detail))
    return result;
  result.passed = true;
  result.detail = std::to_string(blk.y) + "x" + std::to_string(blk.x) + " block with padding";
  return result;
}

}  // namespace vdla::selftest
