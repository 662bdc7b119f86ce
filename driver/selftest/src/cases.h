#pragma once
// The families of built-in self-test cases. Private to the selftest library.
#include <chrono>
#include <random>
#include <string>

#include "vdla/selftest/blocked_gemm.h"
#include "vdla/selftest/selftest.h"

namespace vdla::selftest {

struct CaseContext {
  driver::Device& device;
  std::mt19937_64 rng;
  std::chrono::milliseconds timeout;
};

CaseResult gemmCase(CaseContext& ctx, const GemmShape& shape, bool double_buffer, int shift);
CaseResult aluCase(CaseContext& ctx, hw::AluOp op, bool use_imm);
CaseResult paddedInputLoadCase(CaseContext& ctx);
CaseResult paddedAccLoadCase(CaseContext& ctx, hw::Memory mem);  // Acc or Acc8

// Compares element-wise; on mismatch fills `detail` with the first difference.
template <class T>
bool sameElements(const std::vector<T>& expected, const std::vector<T>& got, const std::string& what,
                  std::string& detail) {
  size_t mismatches = 0, first = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != got[i] && mismatches++ == 0) first = i;
  if (mismatches == 0) return true;
  detail = what + ": " + std::to_string(mismatches) + " of " + std::to_string(expected.size()) +
           " elements differ; first at element " + std::to_string(first) + ": expected " +
           std::to_string(int64_t(expected[first])) + ", got " + std::to_string(int64_t(got[first]));
  return false;
}

}  // namespace vdla::selftest
