// Which QLinearAdd nodes the accelerator can run, and the exact integer form
// of each (add_layer.h).
#include "vdla/compiler/accel/add_layer.h"

#include <cmath>
#include <stdexcept>

#include "vdla/runtime/kernel_registry.h"
#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::accel {

namespace {

constexpr const char* kOp = "com.microsoft.QLinearAdd";
// QLinearAdd's operands: A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point.
constexpr size_t kA = 0, kB = 3, kC = 0;
constexpr size_t kParams[] = {1, 2, 4, 5, 6, 7};

bool isInt8Nchw(const ir::Value* v) {
  return v && v->hasType() && v->type().dtype == rt::DType::I8 && v->type().shape.size() == 4;
}

bool present(const ir::Node& node, size_t slot) { return slot < node.numInputs() && node.input(slot); }

bool isConstantScalar(const ir::Value* v) { return v->isConstant() && v->constant().numElements() == 1; }

// The reference kernel's output for every (A, B) pair, indexed [(A + 128) * 256 + B + 128].
std::vector<int8_t> referenceTable(const ir::Node& node) {
  rt::Tensor a(rt::DType::I8, {256 * 256}), b(rt::DType::I8, {256 * 256}), c(rt::DType::I8, {256 * 256});
  for (int i = 0; i < 256 * 256; ++i) {
    a.data<int8_t>()[i] = static_cast<int8_t>(i / 256 - 128);
    b.data<int8_t>()[i] = static_cast<int8_t>(i % 256 - 128);
  }
  rt::KernelArgs args;
  std::vector<rt::Tensor> params;
  for (size_t slot = 0; slot < 8; ++slot)
    if (slot != kA && slot != kB && present(node, slot)) params.push_back(node.input(slot)->constant());
  size_t next = 0;
  for (size_t slot = 0; slot < 8; ++slot) {
    if (slot == kA)
      args.inputs.push_back(&a);
    else if (slot == kB)
      args.inputs.push_back(&b);
    else
      args.inputs.push_back(present(node, slot) ? &params[next++] : nullptr);
  }
  args.outputs.push_back(&c);
  args.attrs = &node.attrs();  // unsigned_domain among them
  rt::KernelRegistry& kernels = rt::KernelRegistry::global();
  rt::registerReferenceKernels(kernels);
  kernels.get(rt::referenceKernelName(kOp))(args);
  return std::vector<int8_t>(c.data<int8_t>(), c.data<int8_t>() + c.numElements());
}

double scalarOf(const ir::Value* v, double absent) {
  if (!v) return absent;
  const rt::Tensor& t = v->constant();
  switch (t.dtype()) {
    case rt::DType::F32: return t.data<float>()[0];
    case rt::DType::I8: return t.data<int8_t>()[0];
    case rt::DType::U8: return t.data<uint8_t>()[0];
    default: throw std::logic_error("QLinearAdd parameter '" + v->name() + "' of unexpected type");
  }
}

}  // namespace

std::optional<IntegerAddForm> findExactAddForm(const std::vector<int8_t>& table, double ratio_a, double ratio_b,
                                               double fixed) {
  if (table.size() != 256 * 256) throw std::invalid_argument("findExactAddForm: the table needs 65,536 entries");
  std::vector<AffineSample> samples(table.size());
  for (size_t i = 0; i < table.size(); ++i) samples[i] = {int32_t(i / 256) - 128, int32_t(i % 256) - 128, table[i]};
  return findExactAffineForm(ratio_a, ratio_b, fixed, 128, 128, samples);
}

namespace {

// The layer with its exact form, or why the node has none.
struct AddAnalysis {
  std::string why;
  AddLayer layer;
};

AddAnalysis analyse(const ir::Node& node) {
  AddAnalysis r;
  auto fail = [&](const char* why) {
    r.why = why;
    return r;
  };
  if (node.qualifiedOp() != kOp) return fail("runs on the CPU");
  if (node.numInputs() < 7 || !isInt8Nchw(node.input(kA)) || !isInt8Nchw(node.input(kB)) ||
      !isInt8Nchw(node.output(kC)))
    return fail("quantised addition of tensors that are not int8 NCHW");
  const rt::Shape& shape = node.output(kC)->type().shape;
  if (node.input(kA)->type().shape != shape || node.input(kB)->type().shape != shape)
    return fail("quantised addition with broadcasting");
  for (size_t slot : kParams)
    if (slot < node.numInputs() && node.input(slot) && !isConstantScalar(node.input(slot)))
      return fail("quantised addition whose scales or zero points are not constant scalars");
  const double sa = scalarOf(node.input(1), 0), sb = scalarOf(node.input(4), 0), sc = scalarOf(node.input(6), 0);
  if (!(sa > 0) || !(sb > 0) || !(sc > 0)) return fail("quantised addition with a scale that is not positive");
  const double ra = sa / sc, rb = sb / sc;
  const double fixed = scalarOf(node.numInputs() > 7 ? node.input(7) : nullptr, 0) - ra * scalarOf(node.input(2), 0) -
                       rb * scalarOf(node.input(5), 0);
  const std::optional<IntegerAddForm> form = findExactAddForm(referenceTable(node), ra, rb, fixed);
  if (!form)
    return fail("quantised addition with no integer form equal to the CPU's float rounding for every input pair");
  r.layer.name = node.name();
  r.layer.n = shape[0];
  r.layer.c = shape[1];
  r.layer.h = shape[2];
  r.layer.w = shape[3];
  r.layer.form = *form;
  return r;
}

}  // namespace

std::string whyNotOffloadableAdd(const ir::Node& node) { return analyse(node).why; }

AddLayer addLayerFromNode(const ir::Node& node) {
  AddAnalysis a = analyse(node);
  if (!a.why.empty()) throw std::logic_error(node.describe() + ": not an offloadable addition: " + a.why);
  return a.layer;
}

}  // namespace vdla::accel
