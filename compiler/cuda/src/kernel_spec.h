// What an operator emitter produces for one step, and the helpers emitters
// share to write CUDA C++ text. Private to the CUDA backend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vdla/compiler/cuda/cuda_backend.h"
#include "vdla/runtime/artifact.h"

namespace vdla::cuda {

// One kernel: a parameter struct of compile-time constants, the kernel's
// arguments and body. The generator wraps them into
//   struct <entry>_P { <params> };
//   extern "C" __global__ void __launch_bounds__(<threads>) <entry>(<args>) {
//     using P = <entry>_P; <body> }
struct KernelSpec {
  std::string params;
  std::vector<std::string> args;  // declarations, in the step's argument order
  std::string body;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {256, 1, 1};
};

// The step an emitter works on, with its plan for tensor types and constants.
struct StepContext {
  const rt::Artifact& plan;
  const rt::ArtifactStep& step;
  size_t index;
  std::string op;  // "Conv" (from "ref.Conv")
  const CudaCodegenOptions& options;

  bool hasInput(size_t i) const { return i < step.inputs.size() && step.inputs[i] >= 0; }
  const rt::ArtifactTensor& input(size_t i) const;  // throws naming the step when missing
  const rt::ArtifactTensor& output(size_t i) const;
  size_t numOutputs() const { return step.outputs.size(); }
  const rt::AttributeMap& attrs() const { return step.attrs; }
  // A CudaBackendError naming the step: "step 3 'conv1' (Conv): <what>".
  [[noreturn]] void fail(const std::string& what) const;
  void require(bool cond, const std::string& what) const {
    if (!cond) fail(what);
  }
  void requireF32(const rt::ArtifactTensor& t, const char* role) const;
};

// C++ text helpers.
std::string floatLiteral(double v);  // exact hexadecimal float with suffix f
std::string intArray(const std::string& name, const std::vector<int64_t>& values);  // never zero-length
std::string constant(const std::string& name, int64_t v);
std::string constantF(const std::string& name, double v);
std::string constantB(const std::string& name, bool v);
const char* cudaTypeName(rt::DType t);
// Fused-activation members act_kind, act_has_lo/hi, act_lo/hi from the step's attributes.
std::string activationParams(const StepContext& ctx);
// Grid-stride launch over `total` elements with 256 threads per block.
void gridStride(KernelSpec& k, int64_t total);
int64_t ceilDiv(int64_t a, int64_t b);
// Strides of an operand of shape `s` seen through numpy broadcasting to
// `out` (aligned to the output's rank, 0 on broadcast dimensions).
std::vector<int64_t> broadcastStrides(const StepContext& ctx, const rt::Shape& s, const rt::Shape& out);

// Operator families. Each returns false when `ctx.op` is not one of its
// operators and throws (ctx.fail) for unsupported forms of its operators.
bool emitConv(const StepContext& ctx, KernelSpec& k);
bool emitMatMul(const StepContext& ctx, KernelSpec& k);
bool emitElementwise(const StepContext& ctx, KernelSpec& k);
bool emitPool(const StepContext& ctx, KernelSpec& k);
bool emitReduce(const StepContext& ctx, KernelSpec& k);
bool emitTensorOp(const StepContext& ctx, KernelSpec& k);
bool emitQuantization(const StepContext& ctx, KernelSpec& k);
// Integer operators of quantised graphs (emit_qlinear*.cpp).
bool emitIntegerOp(const StepContext& ctx, KernelSpec& k);
bool emitIntegerConv(const StepContext& ctx, KernelSpec& k);

// The device library (src/device/*.cuh), embedded at build time.
extern const char* const kDeviceCommon;
extern const char* const kDeviceConv;
extern const char* const kDeviceConvTf32;
extern const char* const kDeviceGemm;
extern const char* const kDeviceElementwise;
extern const char* const kDevicePool;
extern const char* const kDeviceReduce;
extern const char* const kDeviceTensor;
extern const char* const kDeviceInteger;

}  // namespace vdla::cuda
