#include "step_builder.h"

#include <cmath>
#include <stdexcept>

namespace vdla::cpu {

using namespace llvm;

Activation readActivation(const ir::Node& node) {
  Activation a;
  if (!node.attrs().has("activation")) return a;
  const std::string& name = node.attrs().getString("activation");
  a.enabled = true;
  if (name == "Relu") {
    a.lo = 0;
    a.hi = INFINITY;
  } else if (name == "Clip") {
    a.lo = static_cast<float>(node.attrs().getFloat("activation_min", -INFINITY));
    a.hi = static_cast<float>(node.attrs().getFloat("activation_max", INFINITY));
  } else {
    throw std::runtime_error(node.describe() + ": target 'llvm' does not support fused activation '" + name + "'");
  }
  return a;
}

Value* applyActivation(StepEmitter& e, Value* v, const Activation& act) {
  if (!act.enabled) return v;
  IRBuilder<>& b = e.b();
  auto splat = [&](float c) -> Value* {
    Value* s = e.cf(c);
    if (auto* vt = dyn_cast<FixedVectorType>(v->getType())) return b.CreateVectorSplat(vt->getNumElements(), s);
    return s;
  };
  // std::max(v, lo) then std::min(., hi): v < lo ? lo : v; hi < v ? hi : v.
  if (act.lo != -INFINITY) v = b.CreateSelect(b.CreateFCmpOLT(v, splat(act.lo)), splat(act.lo), v);
  if (act.hi != INFINITY) v = b.CreateSelect(b.CreateFCmpOLT(splat(act.hi), v), splat(act.hi), v);
  return v;
}

int StepBuilder::use(const ir::Value* v) {
  if (started_) throw std::logic_error("StepBuilder: input added after code generation began");
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].value == v) return static_cast<int>(i);
  Input in;
  in.value = v;
  inputs_.push_back(std::move(in));
  return static_cast<int>(inputs_.size() - 1);
}

int StepBuilder::addConstant(const std::string& suffix, rt::Tensor t) {
  if (started_) throw std::logic_error("StepBuilder: constant added after code generation began");
  Input in;
  in.constant = std::move(t);
  in.name = node_.name() + "." + suffix;
  inputs_.push_back(std::move(in));
  return static_cast<int>(inputs_.size() - 1);
}

StepEmitter& StepBuilder::code() {
  if (!started_) {
    emitter_.begin(symbol_, static_cast<int>(inputs_.size() + outputs_.size()));
    started_ = true;
  }
  return emitter_;
}

void StepBuilder::fail(const std::string& why) const {
  throw std::runtime_error(node_.describe() + ": target 'llvm': " + why);
}

const rt::TensorType& StepBuilder::inputType(size_t i) const {
  const ir::Value* v = node_.input(i);
  if (!v) fail("input " + std::to_string(i) + " is missing");
  if (!v->hasType()) fail("input '" + v->name() + "' has no type");
  return v->type();
}

void StepBuilder::requireF32() const {
  for (size_t i = 0; i < node_.numInputs(); ++i)
    if (node_.input(i) && inputType(i).dtype != rt::DType::F32)
      fail(std::string("element type ") + rt::dtypeName(inputType(i).dtype) + " of input '" + node_.input(i)->name() +
           "' is not supported (supported: f32)");
  for (const ir::Value* out : outputs_)
    if (out->type().dtype != rt::DType::F32)
      fail(std::string("element type ") + rt::dtypeName(out->type().dtype) + " of output '" + out->name() +
           "' is not supported (supported: f32)");
}

Window2 resolveWindow2(const StepBuilder& s, const rt::Shape& x, const rt::Shape& y, int64_t k_h, int64_t k_w) {
  return resolveWindow2(s.node(), x, y, k_h, k_w);
}

Window2 resolveWindow2(const ir::Node& node, const rt::Shape& x, const rt::Shape& y, int64_t k_h, int64_t k_w) {
  auto fail = [&](const std::string& why) { throw std::runtime_error(node.describe() + ": target 'llvm': " + why); };
  const size_t spatial = x.size() - 2;
  if (x.size() < 2 || spatial < 1 || spatial > 2 || y.size() != x.size())
    fail("only 1-D and 2-D windows are supported, input is " + rt::shapeToString(x));
  const rt::AttributeMap& attrs = node.attrs();
  auto list = [&](const char* name, int64_t fallback, size_t count) {
    std::vector<int64_t> v = attrs.getInts(name, std::vector<int64_t>(count, fallback));
    if (v.size() != count) fail(std::string("attribute '") + name + "' needs " + std::to_string(count) + " values");
    return v;
  };
  const std::vector<int64_t> strides = list("strides", 1, spatial), dil = list("dilations", 1, spatial);
  std::vector<int64_t> pads = list("pads", 0, 2 * spatial);
  const std::string auto_pad = attrs.getString("auto_pad", "NOTSET");
  const std::vector<int64_t> kernel = spatial == 1 ? std::vector<int64_t>{k_w} : std::vector<int64_t>{k_h, k_w};
  if (auto_pad == "VALID") {
    std::fill(pads.begin(), pads.end(), 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t d = 0; d < spatial; ++d) {
      const int64_t total = std::max<int64_t>(0, (y[2 + d] - 1) * strides[d] + (kernel[d] - 1) * dil[d] + 1 - x[2 + d]);
      pads[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[d + spatial] = total - pads[d];
    }
  } else if (auto_pad != "NOTSET") {
    fail("attribute 'auto_pad' has unsupported value \"" + auto_pad + "\"");
  }
  Window2 w;
  const bool one = spatial == 1;
  w.in_h = one ? 1 : x[2];
  w.in_w = x.back();
  w.out_h = one ? 1 : y[2];
  w.out_w = y.back();
  w.k_h = one ? 1 : k_h;
  w.k_w = k_w;
  w.stride_h = one ? 1 : strides[0];
  w.stride_w = strides.back();
  w.dil_h = one ? 1 : dil[0];
  w.dil_w = dil.back();
  w.pad_top = one ? 0 : pads[0];
  w.pad_left = pads[spatial - 1];
  w.pad_bottom = one ? 0 : pads[spatial];
  w.pad_right = pads[2 * spatial - 1];
  return w;
}

}  // namespace vdla::cpu
