// Runs graph passes in a visible order. After each pass it can verify the
// graph, print it, and it times every pass; an exception from a pass or a
// failed verification is re-thrown naming the pass.
//
// The standard pipeline (the table of contents of graph optimisation):
//   fold-constants        constant folding with shape inference interleaved
//                         (shape-computing subgraphs fold before the Reshape
//                         that reads them is typed)
//   remove-identities     Identity, Dropout, no-op Cast
//   qdq-to-integer-ops    DQ -> Conv/Add/Gemm/... -> Q groups -> QLinearConv etc., as onnxruntime
//                         (or strip-qdq: dequantised weights, no activation quantisers)
//   fold-batchnorm        Conv+BN into the Conv; other BNs into Mul+Add
//   canonicalize-pooling  spatial ReduceMean / whole-input AveragePool -> GlobalAveragePool
//   simplify-reshapes     no-op reshapes, reshape chains, Reshape -> Flatten
//   fuse-gemm-bias        MatMul(+Add) -> Gemm, Gemm+Add -> Gemm
//   fuse-activations      Conv/Add/Gemm + Relu, Conv + Clip
//   eliminate-dead-code   unreachable nodes, unused constants
//   infer-shapes          re-types every value
// followed by a verification with every value typed.
//
// A compile target's stages (target.h: quantisation, lowering, code
// generation) run after these with the same options and land in the same
// PassReport, their records naming the target.
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/passes/batchnorm_folding.h"
#include "vdla/compiler/passes/constant_folding.h"

namespace vdla {

// A pass returns whether it changed the graph.
using PassFn = std::function<bool(ir::Graph&)>;

struct PassManagerOptions {
  bool verify_each = true;                   // ir::verifyGraphOrThrow after every pass
  std::ostream* print_after_each = nullptr;  // the IR after every pass (--print-after-all)
  bool print_only_changed = false;           // with print_after_each: skip passes that changed nothing
  std::ostream* timing_report = nullptr;     // a table of per-pass times after run()
};

struct PassRecord {
  std::string name;
  std::string target;  // the target whose stage this is; empty for a graph pass
  bool changed = false;
  double seconds = 0;
  size_t nodes_before = 0;
  size_t nodes_after = 0;
};

struct PassReport {
  std::vector<PassRecord> passes;
  double total_seconds = 0;
  // One line per pass: time, node count, changed; a target stage as
  // "stage (target)".
  void print(std::ostream& out) const;
};

// Thrown when a pass or target stage fails or leaves an invalid graph or
// artifact; what() names the pass (and the target, for a target stage).
class PassError : public std::runtime_error {
 public:
  PassError(std::string pass, const std::string& message, std::string target = {})
      : std::runtime_error(message), pass_(std::move(pass)), target_(std::move(target)) {}
  const std::string& pass() const { return pass_; }
  const std::string& target() const { return target_; }  // empty for a graph pass

 private:
  std::string pass_;
  std::string target_;
};

class PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {}) : options_(std::move(options)) {}

  // fn is `bool(ir::Graph&)` (returns "changed") or `void(ir::Graph&)` (assumed to change).
  template <typename F>
  PassManager& add(std::string name, F&& fn) {
    if constexpr (std::is_void_v<std::invoke_result_t<F&, ir::Graph&>>) {
      return addPass(std::move(name), [f = std::forward<F>(fn)](ir::Graph& g) mutable {
        f(g);
        return true;
      });
    } else {
      return addPass(std::move(name), PassFn(std::forward<F>(fn)));
    }
  }
  PassManager& addPass(std::string name, PassFn fn);

  std::vector<std::string> passNames() const;
  PassManagerOptions& options() { return options_; }
  const PassManagerOptions& options() const { return options_; }

  // Runs every pass in order; throws PassError naming the failing pass.
  PassReport run(ir::Graph& graph) const;

 private:
  struct Entry {
    std::string name;
    PassFn fn;
  };
  std::vector<Entry> passes_;
  PassManagerOptions options_;
};

struct PipelineOptions {
  bool verify_each = true;
  std::ostream* print_after_each = nullptr;  // --print-after-all
  std::ostream* timing_report = nullptr;
  bool fold_constants = true;
  bool fold_batchnorm = true;
  bool fuse = true;  // canonicalize-pooling, simplify-reshapes, fuse-gemm-bias, fuse-activations
  // Strip a QDQ model to fp32 (strip-qdq) instead of turning its QDQ groups
  // into integer operators (qdq-to-integer-ops).
  bool strip_qdq = false;
  passes::ConstantFoldingOptions constant_folding;
  passes::BatchNormFoldingOptions batchnorm;
};

// Adds the standard pipeline's passes (see the top of this file) to pm.
void addStandardPipeline(PassManager& pm, const PipelineOptions& options = {});
// Runs the standard pipeline on graph, then verifies it with every value typed.
PassReport runStandardPipeline(ir::Graph& graph, const PipelineOptions& options = {});

}  // namespace vdla
