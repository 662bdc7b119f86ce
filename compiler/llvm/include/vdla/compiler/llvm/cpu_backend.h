// The CPU back end (target "llvm"): every operator of a graph becomes one
// function of LLVM IR following the native ABI
// (runtime/include/vdla/runtime/native_abi.h), optimised and compiled for a
// CPU: in process through ORC LLJIT, or ahead of time into a shared library
// that the runtime loads with dlopen (x86-64 host, armv7-a with NEON and
// hard float, aarch64). This library is the only code that links LLVM.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/kernel_registry.h"

namespace vdla::cpu {

// A code generation target: LLVM triple, CPU and feature string.
struct CpuTarget {
  std::string triple;
  std::string cpu;
  std::string features;

  // The machine this process runs on, with its CPU's features.
  static CpuTarget host();
  // "host", "armv7" (Cortex-A9: armv7-a, NEON, hard float) or "aarch64";
  // throws naming the known ones otherwise.
  static CpuTarget named(const std::string& name);
};

struct CpuCompileOptions {
  // Fold an Add that follows a Conv (a residual connection) into the Conv's
  // epilogue.
  bool fuse_residual = true;
  // Compute a 1x1 Conv together with the depthwise Conv that is the only
  // reader of its output (MobileNetV2's expansion and depthwise layers), so
  // that the expanded tensor stays in cache.
  bool fuse_expand_depthwise = true;
  // Likewise a depthwise Conv with the 1x1 Conv that is the only reader of
  // its output (MobileNetV2's first block), band of rows by band of rows.
  bool fuse_depthwise_pointwise = true;
};

// A graph compiled in process: the artifact plan (steps "llvm.<symbol>")
// and a registry holding its kernels, which keeps the JIT'ed code alive.
// Run it with rt::Executor(artifact, *kernels).
struct JitProgram {
  rt::Artifact artifact;
  std::shared_ptr<rt::KernelRegistry> kernels;
  double codegen_seconds = 0;
};

// Lowers a typed, verified graph and JIT-compiles it for the host. Throws
// std::runtime_error naming the node for an unsupported operator or type.
JitProgram compileJit(const ir::Graph& graph, const CpuCompileOptions& options = {});

// Lowers the graph and compiles it ahead of time for `target` into a shared
// library, stored in the artifact as blob "llvm.so" (the target's triple in
// metadata "llvm.triple"); the runtime loads it with dlopen. The plan itself
// depends on the target (weights are packed for its vector registers).
rt::Artifact compileShared(const ir::Graph& graph, const CpuTarget& target, const CpuCompileOptions& options = {});

}  // namespace vdla::cpu
