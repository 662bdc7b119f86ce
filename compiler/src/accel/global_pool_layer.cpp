// Which QLinearGlobalAveragePool nodes the accelerator can run, and the exact
// integer form of each (global_pool_layer.h).
#include "vdla/compiler/accel/global_pool_layer.h"

#include <stdexcept>

#include "vdla/runtime/kernel_registry.h"
#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::accel {

namespace {

constexpr const char* kOp = "com.microsoft.QLinearGlobalAveragePool";

bool present(const ir::Node& node, size_t slot) { return slot < node.numInputs() && node.input(slot); }

double scalarOf(const ir::Node& node, size_t slot) {
  if (!present(node, slot)) return 0;
  const rt::Tensor& t = node.input(slot)->constant();
  switch (t.dtype()) {
    case rt::DType::F32: return t.data<float>()[0];
    case rt::DType::I8: return t.data<int8_t>()[0];
    case rt::DType::U8: return t.data<uint8_t>()[0];
    default: throw std::logic_error(node.describe() + ": parameter " + std::to_string(slot) + " of unexpected type");
  }
}

// The kernel's output for every channel sum S in [-128*N, 127*N], indexed
// S + 128*N: one channel per sum, its N elements -128 raised in turn.
std::vector<int8_t> referenceTable(const ir::Node& node, int64_t elements) {
  const int64_t sums = 255 * elements + 1;
  rt::Tensor x(rt::DType::I8, {1, sums, elements, 1}), y(rt::DType::I8, {1, sums, 1, 1});
  for (int64_t m = 0; m < sums; ++m) {
    int64_t left = m;
    for (int64_t i = 0; i < elements; ++i) {
      const int64_t raise = std::min<int64_t>(255, left);
      left -= raise;
      x.data<int8_t>()[m * elements + i] = static_cast<int8_t>(-128 + raise);
    }
  }
  std::vector<rt::Tensor> params;
  for (size_t slot = 1; slot < 5; ++slot)
    if (present(node, slot)) params.push_back(node.input(slot)->constant());
  rt::KernelArgs args;
  args.inputs.push_back(&x);
  size_t next = 0;
  for (size_t slot = 1; slot < 5; ++slot) args.inputs.push_back(present(node, slot) ? &params[next++] : nullptr);
  args.outputs.push_back(&y);
  const rt::AttributeMap attrs;
  args.attrs = &attrs;
  rt::KernelRegistry& kernels = rt::KernelRegistry::global();
  rt::registerReferenceKernels(kernels);
  kernels.get(rt::referenceKernelName(kOp))(args);
  return std::vector<int8_t>(y.data<int8_t>(), y.data<int8_t>() + y.numElements());
}

struct GlobalPoolAnalysis {
  std::string why;
  GlobalPoolLayer layer;
};

GlobalPoolAnalysis analyse(const ir::Node& node) {
  GlobalPoolAnalysis r;
  auto fail = [&](std::string why) {
    r.why = std::move(why);
    return r;
  };
  if (node.qualifiedOp() != kOp) return fail("runs on the CPU");
  const ir::Value* x = node.input(0);
  const ir::Value* y = node.output(0);
  if (!x || !x->hasType() || x->type().dtype != rt::DType::I8 || x->type().shape.size() != 4 || !y->hasType())
    return fail("global average pooling of a tensor that is not int8 NCHW");
  if (node.attrs().getInt("channels_last", 0) != 0) return fail("global average pooling with channels_last");
  if (node.numInputs() < 4 || !present(node, 1) || !present(node, 3))
    return fail("global average pooling without its scales");
  for (size_t slot = 1; slot < 5; ++slot)
    if (present(node, slot) && (!node.input(slot)->isConstant() || node.input(slot)->constant().numElements() != 1))
      return fail("global average pooling whose scales or zero points are not constant scalars");
  const rt::Shape& shape = x->type().shape;
  const int64_t elements = shape[2] * shape[3];
  if (elements < 1 || elements > kMaxGlobalPoolElements)
    return fail("global average pooling over " + std::to_string(elements) + " elements per channel (at most " +
                std::to_string(kMaxGlobalPoolElements) + " are tabulated)");
  const double sx = scalarOf(node, 1), sy = scalarOf(node, 3);
  if (!(sx > 0) || !(sy > 0)) return fail("global average pooling with a scale that is not positive");
  const double ratio = sx / (sy * double(elements));
  const double fixed = scalarOf(node, 4) - ratio * scalarOf(node, 2) * double(elements);
  const std::vector<int8_t> table = referenceTable(node, elements);
  const int64_t lowest = -128 * elements;
  std::vector<AffineSample> samples(table.size());
  for (size_t i = 0; i < table.size(); ++i) samples[i] = {int32_t(int64_t(i) + lowest), 0, table[i]};
  const std::optional<ScaledForm> form = findExactScaledForm(ratio, fixed, 128 * elements, samples);
  if (!form) return fail("global average pooling with no integer form equal to the CPU's float rounding for every sum");
  r.layer.name = node.name();
  r.layer.n = shape[0];
  r.layer.c = shape[1];
  r.layer.h = shape[2];
  r.layer.w = shape[3];
  r.layer.form = *form;
  return r;
}

}  // namespace

std::string whyNotOffloadableGlobalPool(const ir::Node& node) { return analyse(node).why; }

GlobalPoolLayer globalPoolLayerFromNode(const ir::Node& node) {
  GlobalPoolAnalysis a = analyse(node);
  if (!a.why.empty()) throw std::logic_error(node.describe() + ": not an offloadable global pooling: " + a.why);
  return a.layer;
}

}  // namespace vdla::accel
