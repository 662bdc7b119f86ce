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
  const rt::AttributeMap attrs;
  args.attrs = &attrs;
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

// Every form checks against the whole table; the first mismatch ends a try.
bool reproduces(const IntegerAddForm& f, const std::vector<int8_t>& table) {
  for (int32_t a = -128; a <= 127; ++a)
    for (int32_t b = -128; b <= 127; ++b)
      if (f.apply(a, b) != table[size_t((a + 128) * 256 + b + 128)]) return false;
  return true;
}

}  // namespace

int32_t IntegerAddForm::apply(int32_t a, int32_t b) const {
  int64_t v = int64_t(ma) * a + int64_t(mb) * b + k;
  if (shift > 0) v = (v + (int64_t(1) << (shift - 1))) >> shift;
  return static_cast<int32_t>(std::min<int64_t>(127, std::max<int64_t>(-128, v)));
}

std::optional<IntegerAddForm> findExactAddForm(const std::vector<int8_t>& table, double ratio_a, double ratio_b,
                                               double fixed) {
  if (table.size() != 256 * 256) throw std::invalid_argument("findExactAddForm: the table needs 65,536 entries");
  // The finest shift whose sums stay inside int32 with room for the
  // candidates' offsets: |ma*A| + |mb*B| + |k| + 2^(s-1) < 2^31.
  const double magnitude = 128 * (std::fabs(ratio_a) + std::fabs(ratio_b)) + std::fabs(fixed) + 1;
  const int s_max = std::min(30, int(std::floor(std::log2(double(1u << 30) / magnitude))) + 1);
  for (int s = s_max; s >= std::max(0, s_max - 6); --s) {
    const double unit = std::ldexp(1.0, s);
    const int64_t ma0 = std::llround(ratio_a * unit), mb0 = std::llround(ratio_b * unit);
    const int64_t k0 = std::llround(fixed * unit);
    // The reference rounds its own float sums; where that decides a tie the
    // nearest integer form can miss by a unit, so neighbours are tried.
    for (int64_t dk : {0, -1, 1, -2, 2, -4, 4, -8, 8})
      for (int64_t da : {0, -1, 1, -2, 2})
        for (int64_t db : {0, -1, 1, -2, 2}) {
          const int64_t ma = ma0 + da, mb = mb0 + db, k = k0 + dk;
          const int64_t bound = 128 * (std::llabs(ma) + std::llabs(mb)) + std::llabs(k);
          if (bound >= (int64_t(1) << 31) - (s > 0 ? (int64_t(1) << (s - 1)) : 0)) continue;
          IntegerAddForm f;
          f.ma = static_cast<int32_t>(ma);
          f.mb = static_cast<int32_t>(mb);
          f.k = static_cast<int32_t>(k);
          f.shift = s;
          if (reproduces(f, table)) return f;
        }
  }
  return std::nullopt;
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
  const double fixed = scalarOf(node.numInputs() > 7 ? node.input(7) : nullptr, 0) -
                       ra * scalarOf(node.input(2), 0) - rb * scalarOf(node.input(5), 0);
  const std::optional<IntegerAddForm> form = findExactAddForm(referenceTable(node), ra, rb, fixed);
  if (!form) return fail("quantised addition with no integer form equal to the CPU's float rounding for every input pair");
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
