// A Conv test case (optionally with a fused activation and a residual Add
// after it) and its comparison with the reference executor, shared by the
// operator tests and the convolution kernel tests.
#pragma once

#include "llvm_test_util.h"

namespace vdla::cpu::test {

struct ConvCase {
  rt::Shape x;
  int64_t m, k_h, k_w, stride, pad, dilation, group;
  bool bias;
  std::string activation;
  bool residual;
};

inline void runConv(const ConvCase& c, const std::string& what, uint32_t seed) {
  std::mt19937 rng(seed);
  ir::Graph g;
  g.name = what;
  ir::Value* x = g.addInput("x", {rt::DType::F32, c.x});
  const bool one_d = c.x.size() == 3;
  rt::Shape ws = {c.m, c.x[1] / c.group};
  if (!one_d) ws.push_back(c.k_h);
  ws.push_back(c.k_w);
  std::vector<ir::Value*> ins = {x, g.addConstant("w", randomTensor(ws, rng))};
  if (c.bias) ins.push_back(g.addConstant("b", randomTensor({c.m}, rng)));
  rt::AttributeMap a;
  const size_t sp = one_d ? 1 : 2;
  a.set("strides", std::vector<int64_t>(sp, c.stride));
  a.set("dilations", std::vector<int64_t>(sp, c.dilation));
  a.set("pads", std::vector<int64_t>(2 * sp, c.pad));
  a.set("group", c.group);
  if (c.activation == "Relu") a.set("activation", std::string("Relu"));
  if (c.activation == "Clip") {
    a.set("activation", std::string("Clip"));
    a.set("activation_min", 0.0);
    a.set("activation_max", 0.5);
  }
  ir::Value* y = g.addNode("Conv", ins, 1, a, "conv")->output();
  std::vector<rt::Tensor> inputs = {randomTensor(c.x, rng)};
  if (c.residual) {
    passes::inferShapes(g);
    ir::Value* r = g.addInput("r", y->type());
    rt::AttributeMap add;
    add.set("activation", std::string("Relu"));
    y = g.addNode("Add", {y, r}, 1, add, "add")->output();
    inputs.push_back(randomTensor(r->type().shape, rng));
  }
  g.addOutput(y);
  expectMatchesReference(g, inputs, what);
}

}  // namespace vdla::cpu::test
