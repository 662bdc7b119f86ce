#pragma once
// Built-in programs that check a Device end to end against plain C++
// references: blocked GEMM at several sizes (single- and double-buffered with
// dependency tokens), every ALU operation with an immediate and a tensor
// operand, and padded loads into every padded memory.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vdla/driver/device.h"

namespace vdla::selftest {

struct CaseResult {
  std::string name;
  bool passed = false;
  std::string detail;  // what was checked, or the first mismatch / error
  sim::ExecutionStats stats;
  double seconds = 0;
};

struct SelftestOptions {
  uint64_t seed = 1;
  std::chrono::milliseconds timeout{120000};  // per program
  std::string filter;                         // run only cases whose name contains this
};

std::vector<std::string> selftestCaseNames(const hw::HwConfig& cfg);

// Runs every case; `on_case` is called as each finishes (for progress output).
std::vector<CaseResult> runSelftests(driver::Device& device, const SelftestOptions& options,
                                     const std::function<void(const CaseResult&)>& on_case = {});

}  // namespace vdla::selftest
