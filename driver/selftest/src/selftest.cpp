#include "vdla/selftest/selftest.h"

#include <chrono>
#include <functional>

#include "cases.h"

namespace vdla::selftest {
namespace {

struct NamedCase {
  std::string name;
  std::function<CaseResult(CaseContext&)> run;
};

std::vector<NamedCase> allCases(const hw::HwConfig& cfg) {
  std::vector<NamedCase> cases;
  // Shapes in blocks (m, k, n); the larger ones exceed the buffers of every
  // shipped config and so are tiled, with remainder tiles at the edges.
  const struct {
    GemmShape shape;
    bool double_buffer;
    int shift;
  } gemms[] = {
      {{1, 1, 1}, false, 0},   {{3, 5, 2}, false, 0},   {{7, 9, 5}, false, 5},
      {{16, 16, 16}, true, 6}, {{48, 24, 40}, true, 8}, {{33, 70, 17}, false, 9},
  };
  for (const auto& g : gemms) {
    std::string name = "gemm-" + std::string(g.double_buffer ? "double-buffered-" : "") +
                       std::to_string(g.shape.m_blocks * cfg.batch) + "x" +
                       std::to_string(g.shape.k_blocks * cfg.block_in) + "x" +
                       std::to_string(g.shape.n_blocks * cfg.block_out);
    cases.push_back({name, [g](CaseContext& ctx) { return gemmCase(ctx, g.shape, g.double_buffer, g.shift); }});
  }
  for (int op = 0; op < hw::numAluOps(cfg); ++op)
    for (bool imm : {true, false})
      cases.push_back({std::string("alu-") + hw::aluOpName(hw::AluOp(op)) + (imm ? "-imm" : "-tensor"),
                       [op, imm](CaseContext& ctx) { return aluCase(ctx, hw::AluOp(op), imm); }});
  cases.push_back({"padded-load-INP", paddedInputLoadCase});
  cases.push_back({"padded-load-ACC", [](CaseContext& ctx) { return paddedAccLoadCase(ctx, hw::Memory::Acc); }});
  cases.push_back({"padded-load-ACC8", [](CaseContext& ctx) { return paddedAccLoadCase(ctx, hw::Memory::Acc8); }});
  return cases;
}

}  // namespace

std::vector<std::string> selftestCaseNames(const hw::HwConfig& cfg) {
  std::vector<std::string> names;
  for (const auto& c : allCases(cfg)) names.push_back(c.name);
  return names;
}

std::vector<CaseResult> runSelftests(driver::Device& device, const SelftestOptions& options,
                                     const std::function<void(const CaseResult&)>& on_case) {
  std::vector<CaseResult> results;
  uint64_t case_index = 0;
  for (const auto& c : allCases(device.config())) {
    ++case_index;
    if (!options.filter.empty() && c.name.find(options.filter) == std::string::npos) continue;
    // Each case has its own random stream, so filtering does not change data.
    CaseContext ctx{device, std::mt19937_64(options.seed * 1000003 + case_index), options.timeout};
    auto start = std::chrono::steady_clock::now();
    CaseResult r;
    try {
      r = c.run(ctx);
    } catch (const std::exception& e) {
      r.passed = false;
      r.detail = e.what();
    }
    r.name = c.name;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (on_case) on_case(r);
    results.push_back(r);
  }
  return results;
}

}  // namespace vdla::selftest
