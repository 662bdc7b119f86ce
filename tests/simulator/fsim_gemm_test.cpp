// fsim against plain references on random blocked GEMMs: random shapes, the
// chosen tiling and random smaller tilings, single and double buffered, random
// output shift. Also checks the execution statistics against quantities
// computed from the shape, the tiling and the program.
#include <random>
#include <sstream>

#include "sim_test_util.h"
#include "vdla/selftest/blocked_gemm.h"

namespace vdla::simtest {
namespace {

using selftest::GemmBuffers;
using selftest::GemmProgram;
using selftest::GemmShape;
using selftest::GemmTiling;

uint32_t ceilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// C = trunc8(wrap32(A * W^T) >> shift), written directly from the layout
// described in blocked_gemm.h (not the library's reference).
std::vector<int8_t> plainGemm(const hw::HwConfig& cfg, const GemmShape& s, const std::vector<int8_t>& a,
                              const std::vector<int8_t>& w, int shift) {
  const uint32_t B = cfg.batch, BI = cfg.block_in, BO = cfg.block_out;
  std::vector<int8_t> c(size_t(s.m_blocks) * s.n_blocks * B * BO);
  for (uint32_t mb = 0; mb < s.m_blocks; ++mb)
    for (uint32_t nb = 0; nb < s.n_blocks; ++nb)
      for (uint32_t b = 0; b < B; ++b)
        for (uint32_t o = 0; o < BO; ++o) {
          uint32_t acc = 0;
          for (uint32_t kb = 0; kb < s.k_blocks; ++kb)
            for (uint32_t i = 0; i < BI; ++i) {
              int32_t x = a[((size_t(mb) * s.k_blocks + kb) * B + b) * BI + i];
              int32_t y = w[((size_t(nb) * s.k_blocks + kb) * BO + o) * BI + i];
              acc += uint32_t(x * y);
            }
          int32_t v = int32_t(acc);
          if (shift > 0) v = isaAlu(AluOp::Shr, v, shift);
          c[((size_t(mb) * s.n_blocks + nb) * B + b) * BO + o] = lowByte(v);
        }
  return c;
}

// A random tiling no larger than the shape that fits the buffers.
GemmTiling randomTiling(std::mt19937_64& rng, const hw::HwConfig& cfg, const GemmShape& shape, bool db) {
  uint32_t lim_m = shape.m_blocks, lim_n = shape.n_blocks, lim_k = shape.k_blocks;
  for (int attempt = 0; attempt < 2000; ++attempt) {
    GemmTiling t{std::uniform_int_distribution<uint32_t>(1, lim_m)(rng),
                 std::uniform_int_distribution<uint32_t>(1, lim_n)(rng),
                 std::uniform_int_distribution<uint32_t>(1, lim_k)(rng), db};
    try {
      selftest::buildBlockedGemm(cfg, shape, t, 0, GemmBuffers{});
      return t;
    } catch (const Error&) {
      if (attempt % 20 == 19) {
        lim_m = std::max(1u, lim_m / 2);
        lim_n = std::max(1u, lim_n / 2);
        lim_k = std::max(1u, lim_k / 2);
      }
    }
  }
  return GemmTiling{1, 1, 1, db};
}

struct Counts {
  uint64_t by_opcode[hw::kNumOpcodes] = {};
  uint64_t tokens[4] = {};
  uint64_t gemm_uop_iterations = 0, alu_element_ops = 0;
};

// Counts what a program contains. Token queue numbering follows
// sim::TokenQueue; the routing of "prev"/"next" is the one isa.h describes.
Counts countProgram(const hw::HwConfig& cfg, const std::vector<Instruction>& prog) {
  Counts c;
  for (const Instruction& i : prog) {
    c.by_opcode[int(i.opcode)]++;
    switch (hw::moduleOf(i)) {
      case hw::Module::Load:
        if (i.push_next) c.tokens[int(sim::TokenQueue::LoadToCompute)]++;
        break;
      case hw::Module::Compute:
        if (i.push_prev) c.tokens[int(sim::TokenQueue::ComputeToLoad)]++;
        if (i.push_next) c.tokens[int(sim::TokenQueue::ComputeToStore)]++;
        break;
      case hw::Module::Store:
        if (i.push_prev) c.tokens[int(sim::TokenQueue::StoreToCompute)]++;
        break;
    }
    const uint64_t iters = uint64_t(i.iter_out) * i.iter_in * (i.uop_end - i.uop_begin);
    if (i.opcode == hw::Opcode::Gemm) c.gemm_uop_iterations += iters;
    if (i.opcode == hw::Opcode::Alu) c.alu_element_ops += iters * cfg.batch * cfg.block_out;
  }
  return c;
}

void runOneGemm(Rig& rig, std::mt19937_64& rng, const GemmShape& shape, const GemmTiling& tiling, int shift) {
  const hw::HwConfig& cfg = rig.cfg;
  std::ostringstream what;
  what << cfg.name << " shape " << shape.m_blocks << "x" << shape.k_blocks << "x" << shape.n_blocks << " tiling "
       << tiling.tm << "x" << tiling.tn << "x" << tiling.tk << (tiling.double_buffer ? " double" : " single")
       << " shift " << shift;
  SCOPED_TRACE(what.str());

  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> a(size_t(shape.m_blocks) * shape.k_blocks * cfg.batch * cfg.block_in);
  std::vector<int8_t> w(size_t(shape.n_blocks) * shape.k_blocks * cfg.block_out * cfg.block_in);
  for (auto& v : a) v = int8_t(byte(rng));
  for (auto& v : w) v = int8_t(byte(rng));

  GemmBuffers buf;
  buf.inp = rig.upload(a);
  buf.wgt = rig.upload(w);
  const uint64_t out_bytes = uint64_t(shape.m_blocks) * shape.n_blocks * cfg.entryBytes(Memory::Output);
  const uint64_t guard = cfg.entryBytes(Memory::Output);
  buf.out = rig.dram.allocate(out_bytes + guard);
  std::memset(rig.dram.map(buf.out, out_bytes + guard), 0x5a, out_bytes + guard);
  GemmProgram sizing = selftest::buildBlockedGemm(cfg, shape, tiling, shift, buf);
  buf.uop = rig.uploadUops(sizing.uops);
  GemmProgram prog = selftest::buildBlockedGemm(cfg, shape, tiling, shift, buf);
  ASSERT_EQ(prog.uops, sizing.uops);

  sim::ExecutionStats stats = rig.runStream(prog.instructions);

  std::vector<int8_t> got = rig.download<int8_t>(buf.out, out_bytes + guard);
  std::vector<int8_t> guard_bytes(got.begin() + out_bytes, got.end());
  got.resize(out_bytes);
  EXPECT_EQ(guard_bytes, std::vector<int8_t>(guard, 0x5a)) << "STORE wrote past the output matrix";
  std::vector<int8_t> expected = selftest::referenceBlockedGemm(cfg, shape, a, w, shift);
  ASSERT_EQ(expected, plainGemm(cfg, shape, a, w, shift)) << "the two references disagree";
  size_t mismatches = 0, first = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != got[i] && mismatches++ == 0) first = i;
  EXPECT_EQ(mismatches, 0u) << "first mismatch at byte " << first << ": expected " << int(expected[first]) << ", got "
                            << int(got[first]);

  // Statistics.
  const uint64_t M = uint64_t(shape.m_blocks) * cfg.batch, N = uint64_t(shape.n_blocks) * cfg.block_out,
                 K = uint64_t(shape.k_blocks) * cfg.block_in;
  EXPECT_EQ(stats.gemm_macs, M * N * K);
  const uint32_t tiles_m = ceilDiv(shape.m_blocks, tiling.tm), tiles_n = ceilDiv(shape.n_blocks, tiling.tn);
  const uint32_t chunks = tiles_m * tiles_n * ceilDiv(shape.k_blocks, tiling.tk);
  EXPECT_EQ(stats.dram_bytes_read[int(Memory::Input)],
            uint64_t(tiles_n) * shape.m_blocks * shape.k_blocks * cfg.entryBytes(Memory::Input));
  EXPECT_EQ(stats.dram_bytes_read[int(Memory::Weight)],
            uint64_t(tiles_m) * shape.n_blocks * shape.k_blocks * cfg.entryBytes(Memory::Weight));
  EXPECT_EQ(stats.dram_bytes_read[int(Memory::Uop)], uint64_t(prog.uops.size()) * hw::kUopBytes);
  EXPECT_EQ(stats.dram_bytes_read[int(Memory::Acc)], 0u);
  EXPECT_EQ(stats.dram_bytes_read[int(Memory::Acc8)], 0u);
  EXPECT_EQ(stats.dram_bytes_written, out_bytes);
  EXPECT_EQ(stats.loads_by_memory[int(Memory::Uop)], 1u);
  EXPECT_EQ(stats.loads_by_memory[int(Memory::Input)], chunks);
  EXPECT_EQ(stats.loads_by_memory[int(Memory::Weight)], chunks);
  EXPECT_EQ(stats.padding_entries, 0u);
  EXPECT_EQ(stats.cycles, 0u);

  Counts c = countProgram(cfg, prog.instructions);
  for (int op = 0; op < hw::kNumOpcodes; ++op)
    EXPECT_EQ(stats.instructions[op], c.by_opcode[op]) << hw::opcodeName(hw::Opcode(op));
  EXPECT_EQ(stats.totalInstructions(), prog.instructions.size());
  EXPECT_EQ(stats.instructions[int(hw::Opcode::Load)], 1u + 2u * chunks);
  EXPECT_EQ(stats.instructions[int(hw::Opcode::Store)], uint64_t(tiles_m) * tiles_n);
  EXPECT_EQ(stats.instructions[int(hw::Opcode::Finish)], 1u);
  for (int q = 0; q < 4; ++q) EXPECT_EQ(stats.tokens_pushed[q], c.tokens[q]) << sim::tokenQueueName(sim::TokenQueue(q));
  EXPECT_EQ(stats.gemm_uop_iterations, c.gemm_uop_iterations);
  EXPECT_EQ(stats.alu_element_ops, c.alu_element_ops);
  EXPECT_EQ(stats.alu_element_ops, shift != 0 ? M * N : 0u);

  rig.dram.release(buf.inp);
  rig.dram.release(buf.wgt);
  rig.dram.release(buf.out);
  rig.dram.release(buf.uop);
}

struct RandomGemmParam {
  const char* config;
  uint32_t max_m, max_k, max_n;
  int shapes;
  uint64_t seed;
};

class FsimRandomGemm : public ::testing::TestWithParam<RandomGemmParam> {};

TEST_P(FsimRandomGemm, MatchesReferenceWithChosenAndRandomTilings) {
  const RandomGemmParam& p = GetParam();
  Rig rig(p.config);
  std::mt19937_64 rng(p.seed);
  for (int i = 0; i < p.shapes; ++i) {
    GemmShape shape{std::uniform_int_distribution<uint32_t>(1, p.max_m)(rng),
                    std::uniform_int_distribution<uint32_t>(1, p.max_k)(rng),
                    std::uniform_int_distribution<uint32_t>(1, p.max_n)(rng)};
    for (bool db : {false, true}) {
      const int shift = std::uniform_int_distribution<int>(0, 12)(rng);
      GemmTiling tiling =
          (i % 2 == 0) ? selftest::chooseGemmTiling(rig.cfg, shape, db) : randomTiling(rng, rig.cfg, shape, db);
      runOneGemm(rig, rng, shape, tiling, shift);
      if (HasFatalFailure() || HasFailure()) return;  // one reported case is enough
    }
  }
  EXPECT_EQ(rig.dram.bytesAllocated(), 0u) << "the test leaked DRAM";
}

INSTANTIATE_TEST_SUITE_P(Configs, FsimRandomGemm,
                         ::testing::Values(RandomGemmParam{"tiny", 40, 40, 40, 30, 11},
                                           RandomGemmParam{"pynq", 12, 16, 12, 30, 12}),
                         [](const ::testing::TestParamInfo<RandomGemmParam>& info) {
                           return std::string(info.param.config);
                         });

// Edge tilings: 1x1x1 tiles (the most tiles and tokens) and whole-matrix tiles.
TEST(FsimGemm, SingleBlockTilesAndWholeMatrixTile) {
  Rig rig("tiny");
  std::mt19937_64 rng(5);
  const GemmShape shape{5, 7, 3};
  for (bool db : {false, true}) {
    runOneGemm(rig, rng, shape, GemmTiling{1, 1, 1, db}, 3);
    runOneGemm(rig, rng, shape, GemmTiling{1, 1, 7, db}, 0);
  }
  runOneGemm(rig, rng, GemmShape{4, 8, 4}, GemmTiling{4, 4, 8, false}, 12);
}

// The chosen tiling must fit and must not be needlessly small: for a shape
// that fits the buffers whole, it is the whole shape.
TEST(FsimGemm, ChosenTilingFits) {
  hw::HwConfig cfg = hw::loadConfig("tiny");
  std::mt19937_64 rng(3);
  for (int i = 0; i < 50; ++i) {
    GemmShape shape{std::uniform_int_distribution<uint32_t>(1, 60)(rng),
                    std::uniform_int_distribution<uint32_t>(1, 60)(rng),
                    std::uniform_int_distribution<uint32_t>(1, 60)(rng)};
    for (bool db : {false, true}) {
      GemmTiling t = selftest::chooseGemmTiling(cfg, shape, db);
      const uint32_t S = db ? 2 : 1;
      EXPECT_EQ(t.double_buffer, db);
      EXPECT_LE(S * t.tm * t.tk, cfg.depth(Memory::Input));
      EXPECT_LE(S * t.tn * t.tk, cfg.depth(Memory::Weight));
      EXPECT_LE(S * t.tm * t.tn, cfg.depth(Memory::Acc));
      EXPECT_GE(t.tm, 1u);
      EXPECT_LE(t.tm, shape.m_blocks);
      EXPECT_LE(t.tn, shape.n_blocks);
      EXPECT_LE(t.tk, shape.k_blocks);
      EXPECT_NO_THROW(selftest::buildBlockedGemm(cfg, shape, t, 4, GemmBuffers{}));
    }
  }
  GemmTiling whole = selftest::chooseGemmTiling(cfg, GemmShape{2, 4, 3}, false);
  EXPECT_EQ(whole.tm, 2u);
  EXPECT_EQ(whole.tn, 3u);
  EXPECT_EQ(whole.tk, 4u);
}

TEST(FsimGemm, TilingThatDoesNotFitIsRejected) {
  hw::HwConfig cfg = hw::loadConfig("tiny");
  // 64 accumulator entries: 9x8 tiles do not fit.
  EXPECT_THROW(selftest::buildBlockedGemm(cfg, GemmShape{9, 1, 8}, GemmTiling{9, 8, 1, false}, 0, GemmBuffers{}),
               Error);
  EXPECT_THROW(selftest::buildBlockedGemm(cfg, GemmShape{1, 1, 1}, GemmTiling{0, 1, 1, false}, 0, GemmBuffers{}),
               Error);
}

}  // namespace
}  // namespace vdla::simtest
