// The CUDA code generator: walks the (fused) plan, asks the operator emitters
// for one kernel per step, writes each distinct kernel once, and assembles the
// translation unit: device library first, then the kernels.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "fuse_residual.h"
#include "kernel_spec.h"

namespace vdla::cuda {

// ---------------------------------------------------------------- StepContext

[[noreturn]] void StepContext::fail(const std::string& what) const {
  throw CudaBackendError("target cuda: step " + std::to_string(index) +
                         (step.name.empty() ? "" : " '" + step.name + "'") + " (" + op + "): " + what);
}

const rt::ArtifactTensor& StepContext::input(size_t i) const {
  if (!hasInput(i)) fail("input " + std::to_string(i) + " is missing");
  return plan.tensors.at(step.inputs[i]);
}

const rt::ArtifactTensor& StepContext::output(size_t i) const {
  if (i >= step.outputs.size()) fail("output " + std::to_string(i) + " is missing");
  return plan.tensors.at(step.outputs[i]);
}

void StepContext::requireF32(const rt::ArtifactTensor& t, const char* role) const {
  if (t.type.dtype != rt::DType::F32)
    fail(std::string(role) + " '" + t.name + "' has element type " + rt::dtypeName(t.type.dtype) +
         "; the CUDA backend runs this operator in f32 only");
}

// ---------------------------------------------------------------- text helpers

std::string floatLiteral(double v) {
  // Hexadecimal floats are exact; infinities and NaN have no literal and are
  // never passed here (activation bounds use presence flags instead).
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%af", static_cast<double>(static_cast<float>(v)));
  return buf;
}

std::string intArray(const std::string& name, const std::vector<int64_t>& values) {
  std::string s = "  static constexpr int " + name + "[] = {";
  if (values.empty()) s += "1";  // zero-length arrays are not C++; never read (rank 0)
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "};\n";
}

std::string constant(const std::string& name, int64_t v) {
  return "  static constexpr int " + name + " = " + std::to_string(v) + ";\n";
}
std::string constantF(const std::string& name, double v) {
  return "  static constexpr float " + name + " = " + floatLiteral(v) + ";\n";
}
std::string constantB(const std::string& name, bool v) {
  return "  static constexpr bool " + name + " = " + (v ? "true" : "false") + ";\n";
}

const char* cudaTypeName(rt::DType t) {
  switch (t) {
    case rt::DType::F32: return "float";
    case rt::DType::I8: return "signed char";
    case rt::DType::U8: return "unsigned char";
    case rt::DType::I32: return "int";
    case rt::DType::I64: return "long long";
    case rt::DType::Bool: return "bool";
  }
  return "float";
}

std::string activationParams(const StepContext& ctx) {
  const std::string a = ctx.attrs().getString("activation", "");
  int kind = 0;
  double lo = 0, hi = 0;
  bool has_lo = false, has_hi = false;
  if (a == "Relu") {
    kind = 1;
  } else if (a == "Clip") {
    kind = 2;
    lo = ctx.attrs().getFloat("activation_min", -HUGE_VAL);
    hi = ctx.attrs().getFloat("activation_max", HUGE_VAL);
    has_lo = std::isfinite(lo);
    has_hi = std::isfinite(hi);
    ctx.require(!std::isnan(lo) && !std::isnan(hi), "Clip activation bounds are NaN");
  } else if (!a.empty()) {
    ctx.fail("attribute 'activation' has unsupported value \"" + a + "\"");
  }
  return constant("act_kind", kind) + constantB("act_has_lo", has_lo) + constantB("act_has_hi", has_hi) +
         constantF("act_lo", has_lo ? lo : 0.0) + constantF("act_hi", has_hi ? hi : 0.0);
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<int64_t> broadcastStrides(const StepContext& ctx, const rt::Shape& s, const rt::Shape& out) {
  const size_t rank = out.size();
  ctx.require(s.size() <= rank, "operand has a higher rank than the output");
  std::vector<int64_t> st(rank, 0);
  const std::vector<int64_t> rm = rt::rowMajorStrides(s);
  for (size_t d = 0; d < s.size(); ++d) {
    const size_t od = d + rank - s.size();
    ctx.require(s[d] == out[od] || s[d] == 1,
                "operand " + rt::shapeToString(s) + " does not broadcast to " + rt::shapeToString(out));
    st[od] = s[d] == 1 ? 0 : rm[d];
  }
  return st;
}

void gridStride(KernelSpec& k, int64_t total) {
  k.block[0] = 256;
  // Grid-stride loops: enough blocks to fill the GPU, never more than needed.
  k.grid[0] = std::min<int64_t>(ceilDiv(total, 256), int64_t{1} << 20);
}

// ---------------------------------------------------------------- generator

namespace {

// `arg_bytes`: the size of each argument's tensor. They go into the host
// entry that the CPU emulation of the tests calls (VDLA_CUDA_EMULATION, never
// defined by NVRTC), which gives each argument a buffer of exactly that size
// between guards, so that an access out of bounds is caught.
std::string kernelText(const KernelSpec& k, const std::string& entry, const std::vector<size_t>& arg_bytes) {
  std::string args, bytes;
  for (size_t i = 0; i < k.args.size(); ++i) args += (i ? ", " : "") + k.args[i];
  for (size_t i = 0; i < arg_bytes.size(); ++i) bytes += ", " + std::to_string(arg_bytes[i]);
  const int64_t threads = k.block[0] * k.block[1] * k.block[2];
  return "struct " + entry + "_P {\n" + k.params + "};\nextern \"C\" __global__ void __launch_bounds__(" +
         std::to_string(threads) + ") " + entry + "(" + args + ") {\n  using P = " + entry + "_P;\n  " + k.body +
         "\n}\n#ifdef VDLA_CUDA_EMULATION\nVDLA_EMU_KERNEL(" + entry + bytes + ")\n#endif\n";
}

// The byte size of each kernel argument: present inputs, then outputs.
std::vector<size_t> argumentBytes(const StepContext& ctx) {
  std::vector<size_t> bytes;
  for (int32_t id : ctx.step.inputs)
    if (id >= 0) bytes.push_back(ctx.plan.tensors[id].type.byteSize());
  for (int32_t id : ctx.step.outputs) bytes.push_back(ctx.plan.tensors[id].type.byteSize());
  return bytes;
}

std::string sanitize(const std::string& s) {
  std::string r;
  for (char c : s) r += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return r;
}

void checkLimits(const StepContext& ctx, const KernelSpec& k) {
  for (int32_t id : ctx.step.inputs)
    if (id >= 0 && ctx.plan.tensors[id].type.numElements() > INT_MAX)
      ctx.fail("tensor '" + ctx.plan.tensors[id].name + "' has 2^31 elements or more (32-bit indexing)");
  for (int32_t id : ctx.step.outputs)
    if (ctx.plan.tensors[id].type.numElements() > INT_MAX)
      ctx.fail("tensor '" + ctx.plan.tensors[id].name + "' has 2^31 elements or more (32-bit indexing)");
  size_t present = ctx.step.outputs.size();
  for (size_t i = 0; i < ctx.step.inputs.size(); ++i) present += ctx.hasInput(i);
  if (k.args.size() != present)
    ctx.fail("internal: kernel declares " + std::to_string(k.args.size()) + " arguments for " +
             std::to_string(present) + " tensors");
  const int64_t threads = k.block[0] * k.block[1] * k.block[2];
  if (threads < 1 || threads > 1024) ctx.fail("block of " + std::to_string(threads) + " threads");
  if (k.grid[0] > INT_MAX || k.grid[1] > 65535 || k.grid[2] > 65535)
    ctx.fail("launch grid " + std::to_string(k.grid[0]) + "x" + std::to_string(k.grid[1]) + "x" +
             std::to_string(k.grid[2]) + " exceeds the CUDA limits");
}

}  // namespace

GeneratedModule generateCudaModule(const rt::Artifact& input, const CudaCodegenOptions& options) {
  GeneratedModule out;
  out.plan = input;
  if (options.fuse_residual) fuseResidualAdds(out.plan);
  const rt::Artifact& plan = out.plan;

  std::ostringstream src;
  src << "// Generated by the vdla CUDA backend for model '" << plan.model_name << "'.\n";
  if (options.tf32_tensor_cores) src << "#include <mma.h>\n";
  src << kDeviceCommon << kDeviceConv;
  if (options.tf32_tensor_cores) src << kDeviceConvTf32;
  src << kDeviceGemm << kDeviceElementwise << kDevicePool << kDeviceReduce << kDeviceTensor << kDeviceInteger;
  src << "\n// ---- kernels, one per distinct step\n";

  std::map<std::string, std::string> entry_of;  // kernel text with a placeholder name -> entry
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const rt::ArtifactStep& step = plan.steps[i];
    const std::string op = step.kernel.rfind("ref.", 0) == 0 ? step.kernel.substr(4) : step.kernel;
    StepContext ctx{plan, step, i, op, options};
    KernelSpec k;
    const bool known = emitConv(ctx, k) || emitMatMul(ctx, k) || emitPool(ctx, k) || emitReduce(ctx, k) ||
                       emitTensorOp(ctx, k) || emitQuantization(ctx, k) || emitIntegerOp(ctx, k) ||
                       (!step.inputs.empty() && emitElementwise(ctx, k));
    if (!known) ctx.fail("operator '" + op + "' is not supported by the CUDA backend");
    checkLimits(ctx, k);
    const std::vector<size_t> arg_bytes = argumentBytes(ctx);
    const std::string key = kernelText(k, "@ENTRY@", arg_bytes);
    auto it = entry_of.find(key);
    std::string entry;
    if (it != entry_of.end()) {
      entry = it->second;
    } else {
      entry = "vdla_k" + std::to_string(out.entries.size()) + "_" + sanitize(op);
      entry_of.emplace(key, entry);
      out.entries.push_back(entry);
      std::string name = step.name;
      std::replace(name.begin(), name.end(), '\n', ' ');
      src << "\n// step " << i << " '" << name << "' (" << op << ")\n" << kernelText(k, entry, arg_bytes);
    }
    KernelLaunch l;
    l.entry = entry;
    for (int d = 0; d < 3; ++d) {
      l.grid[d] = k.grid[d];
      l.block[d] = k.block[d];
    }
    out.launches.push_back(l);
  }
  out.source = src.str();
  return out;
}

}  // namespace vdla::cuda
