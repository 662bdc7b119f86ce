// Every operator the CPU back end generates, against the reference kernels
// (through the reference executor), on hand-picked shapes that exercise the
// edges of the code: tiles cut by the output size, padding, strides,
// dilation, groups, fused epilogues and broadcasting.
#include "llvm_conv_case.h"

namespace vdla::cpu::test {
namespace {

using ir::Graph;
using ir::Value;

TEST(LlvmConv, HandPickedShapes) {
  const std::vector<ConvCase> cases = {
      {{1, 3, 17, 19}, 8, 3, 3, 1, 1, 1, 1, true, "Relu", false},     // P and M cut through tiles
      {{1, 16, 8, 8}, 32, 1, 1, 1, 0, 1, 1, false, "", false},        // pointwise
      {{1, 3, 23, 23}, 10, 7, 7, 2, 3, 1, 1, true, "", false},        // ResNet stem shape
      {{2, 8, 9, 9}, 12, 3, 3, 2, 1, 1, 2, true, "Relu", false},      // batch 2, two groups
      {{1, 12, 11, 10}, 12, 3, 3, 2, 1, 1, 12, true, "Clip", false},  // depthwise, stride 2
      {{1, 8, 12, 12}, 8, 3, 3, 1, 1, 1, 8, false, "", true},         // depthwise + residual
      {{1, 4, 13, 13}, 6, 3, 3, 1, 2, 2, 1, true, "", false},         // dilation
      {{1, 16, 7, 7}, 33, 3, 3, 1, 1, 1, 1, true, "Relu", true},      // residual epilogue
      {{1, 5, 30}, 7, 1, 5, 2, 2, 1, 1, true, "", false},             // 1-D
  };
  for (size_t i = 0; i < cases.size(); ++i) runConv(cases[i], "conv case " + std::to_string(i), 100 + i);
}

TEST(LlvmConv, RandomShapesProperty) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 24; ++trial) {
    ConvCase c;
    const int group = pick(0, 3) == 0 ? pick(2, 3) : 1;
    const bool depthwise = pick(0, 4) == 0;
    const int64_t channels = depthwise ? pick(1, 9) : group * pick(1, 6);
    c.k_h = pick(1, 4);
    c.k_w = pick(1, 4);
    c.stride = pick(1, 3);
    c.pad = pick(0, 2);
    c.dilation = pick(1, 2);
    const int64_t min_size = (std::max(c.k_h, c.k_w) - 1) * c.dilation + 1;
    c.x = {pick(1, 2), channels, min_size + pick(0, 12), min_size + pick(0, 12)};
    c.group = depthwise ? channels : group;
    c.m = depthwise ? channels : group * pick(1, 11);
    c.bias = pick(0, 1) == 1;
    c.activation = pick(0, 2) == 0 ? "" : pick(0, 1) ? "Relu" : "Clip";
    c.residual = pick(0, 2) == 0;
    runConv(c, "random conv " + std::to_string(trial), 1000 + trial);
  }
}

TEST(LlvmPool, MaxAndAveragePooling) {
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 24; ++trial) {
    Graph g;
    const std::string op = trial % 2 ? "MaxPool" : "AveragePool";
    const int64_t kh = pick(1, 4), kw = pick(1, 4);
    const int64_t pad = pick(0, std::min<int64_t>(kh, kw) - 1);
    rt::Shape shape = {pick(1, 2), pick(1, 5), kh + pick(0, 14), kw + pick(0, 14)};
    Value* x = g.addInput("x", {rt::DType::F32, shape});
    rt::AttributeMap a;
    a.set("kernel_shape", std::vector<int64_t>{kh, kw});
    a.set("strides", std::vector<int64_t>{pick(1, 3), pick(1, 3)});
    a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
    a.set("ceil_mode", int64_t(pick(0, 1)));
    if (op == "AveragePool") a.set("count_include_pad", int64_t(pick(0, 1)));
    g.addOutput(g.addNode(op, {x}, 1, a, "pool")->output());
    expectMatchesReference(g, {randomTensor(shape, rng)}, op + " trial " + std::to_string(trial));
  }
}

// MaxPool vectorised along rows (emit_maxpool_rows.cpp): planes wider than
// a vector (whole vectors and a masked last one, in the input and in the
// output rows), strides 1-4 in each direction, padding up to k - 1,
// ceil_mode windows running past the padding, and ResNet's pooling shape.
TEST(LlvmPool, MaxPoolRowsOnWidePlanes) {
  std::mt19937 rng(23);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 25; ++trial) {
    Graph g;
    const bool resnet = trial == 0;
    const int64_t kh = resnet ? 3 : pick(1, 5), kw = resnet ? 3 : pick(1, 5);
    const int64_t pad = resnet ? 1 : pick(0, std::min<int64_t>(kh, kw) - 1);
    rt::Shape shape =
        resnet ? rt::Shape{1, 3, 112, 112} : rt::Shape{pick(1, 2), pick(1, 4), kh + pick(0, 20), kw + pick(0, 70)};
    Value* x = g.addInput("x", {rt::DType::F32, shape});
    rt::AttributeMap a;
    a.set("kernel_shape", std::vector<int64_t>{kh, kw});
    a.set("strides", std::vector<int64_t>{resnet ? 2 : pick(1, 4), resnet ? 2 : pick(1, 4)});
    a.set("pads", std::vector<int64_t>{pad, pick(0, pad), pick(0, pad), pad});
    a.set("ceil_mode", int64_t(resnet ? 0 : pick(0, 1)));
    g.addOutput(g.addNode("MaxPool", {x}, 1, a, "pool")->output());
    expectMatchesReference(g, {randomTensor(shape, rng)}, "wide MaxPool trial " + std::to_string(trial));
  }
  // The same code for the ARM targets (4-lane vectors; masked loads and
  // stores that the backend expands): ResNet's pooling compiles to ELF.
  Graph g;
  Value* x = g.addInput("x", {rt::DType::F32, {1, 4, 20, 21}});
  rt::AttributeMap a;
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  a.set("strides", std::vector<int64_t>{2, 2});
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  g.addOutput(g.addNode("MaxPool", {x}, 1, a, "pool")->output());
  passes::inferShapes(g);
  for (const char* target : {"armv7", "aarch64"}) {
    const rt::Artifact art = compileShared(g, CpuTarget::named(target));
    const std::vector<uint8_t>& so = art.blobs.at("llvm.so");
    ASSERT_GT(so.size(), 4u) << target;
    EXPECT_EQ(std::string(so.begin(), so.begin() + 4),
              "\x7f"
              "ELF")
        << target;
  }
}

TEST(LlvmPool, GlobalPooling) {
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    std::mt19937 rng(3);
    Graph g;
    Value* x = g.addInput("x", {rt::DType::F32, {2, 5, 7, 9}});
    g.addOutput(g.addNode(op, {x}, 1, {}, "gp")->output());
    expectMatchesReference(g, {randomTensor({2, 5, 7, 9}, rng)}, op);
  }
}

TEST(LlvmDense, RandomGemmProperty) {
  std::mt19937 rng(5);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 24; ++trial) {
    Graph g;
    const int64_t m = pick(1, 9), k = pick(1, 70), n = pick(1, 150);
    const bool ta = pick(0, 3) == 0, tb = pick(0, 1) == 1;
    const rt::Shape as = ta ? rt::Shape{k, m} : rt::Shape{m, k};
    const rt::Shape bs = tb ? rt::Shape{n, k} : rt::Shape{k, n};
    Value* a = g.addInput("a", {rt::DType::F32, as});
    std::vector<Value*> ins = {a, g.addConstant("b", randomTensor(bs, rng))};
    const int bias = pick(0, 3);  // none, [n], [m, n], [1]
    if (bias == 1) ins.push_back(g.addConstant("c", randomTensor({n}, rng)));
    if (bias == 2) ins.push_back(g.addConstant("c", randomTensor({m, n}, rng)));
    if (bias == 3) ins.push_back(g.addConstant("c", randomTensor({1}, rng)));
    rt::AttributeMap attrs;
    attrs.set("transA", int64_t(ta));
    attrs.set("transB", int64_t(tb));
    attrs.set("alpha", pick(0, 1) ? 1.0 : 0.5);
    attrs.set("beta", pick(0, 1) ? 1.0 : 2.0);
    if (pick(0, 1)) attrs.set("activation", std::string("Relu"));
    g.addOutput(g.addNode("Gemm", ins, 1, attrs, "fc")->output());
    expectMatchesReference(g, {randomTensor(as, rng)}, "gemm trial " + std::to_string(trial));
  }
}

TEST(LlvmDense, BatchedMatMulBroadcasts) {
  std::mt19937 rng(9);
  Graph g;
  Value* a = g.addInput("a", {rt::DType::F32, {2, 3, 4, 5}});
  Value* b = g.addInput("b", {rt::DType::F32, {3, 5, 6}});
  g.addOutput(g.addNode("MatMul", {a, b}, 1, {}, "mm")->output());
  expectMatchesReference(g, {randomTensor({2, 3, 4, 5}, rng), randomTensor({3, 5, 6}, rng)}, "matmul");
}

TEST(LlvmElementwise, UnaryOperators) {
  for (const char* op : {"Relu", "Neg", "Abs", "Sigmoid", "Tanh", "Exp", "Sqrt", "Reciprocal", "LeakyRelu",
                         "HardSigmoid", "HardSwish"}) {
    std::mt19937 rng(1);
    Graph g;
    Value* x = g.addInput("x", {rt::DType::F32, {3, 50001}});  // several parallel chunks and a tail
    g.addOutput(g.addNode(op, {x}, 1, {}, std::string("u_") + op)->output());
    const bool positive = std::string(op) == "Sqrt" || std::string(op) == "Reciprocal";
    expectMatchesReference(g, {randomTensor({3, 50001}, rng, positive ? 0.1f : -4.0f, 4.0f)}, op);
  }
}

TEST(LlvmElementwise, BinaryBroadcastingAndClip) {
  const std::vector<std::pair<rt::Shape, rt::Shape>> shapes = {
      {{2, 3, 4, 5}, {2, 3, 4, 5}}, {{2, 3, 4, 5}, {3, 1, 1}}, {{4, 1}, {1, 7}}, {{5}, {2, 3, 5}}, {{2, 3}, {}}};
  int i = 0;
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    for (const auto& [sa, sb] : shapes) {
      std::mt19937 rng(i);
      Graph g;
      Value* a = g.addInput("a", {rt::DType::F32, sa});
      Value* b = g.addInput("b", {rt::DType::F32, sb});
      rt::AttributeMap attrs;
      if (i % 3 == 0) attrs.set("activation", std::string("Relu"));
      Value* y = g.addNode(op, {a, b}, 1, attrs, "bin")->output();
      rt::AttributeMap clip;
      clip.set("min", -0.5);
      clip.set("max", 2.0);
      g.addOutput(g.addNode("Clip", {y}, 1, clip, "clip")->output());
      expectMatchesReference(g, {randomTensor(sa, rng), randomTensor(sb, rng, 0.5f, 2.0f)},
                             std::string(op) + " case " + std::to_string(i++));
    }
}

TEST(LlvmTensorOps, SoftmaxConcatReshapeBatchNorm) {
  std::mt19937 rng(21);
  Graph g;
  Value* a = g.addInput("a", {rt::DType::F32, {2, 3, 4}});
  Value* b = g.addInput("b", {rt::DType::F32, {2, 5, 4}});
  rt::AttributeMap cat;
  cat.set("axis", int64_t(1));
  Value* c = g.addNode("Concat", {a, b}, 1, cat, "cat")->output();
  rt::AttributeMap sm;
  sm.set("axis", int64_t(1));
  g.addOutput(g.addNode("Softmax", {c}, 1, sm, "softmax")->output());
  g.addOutput(g.addNode("LogSoftmax", {c}, 1, {}, "logsoftmax")->output());
  Value* flat = g.addNode("Flatten", {c}, 1, {}, "flatten")->output();
  g.addOutput(g.addNode("Relu", {flat}, 1, {}, "relu")->output());
  Value* x = g.addInput("x", {rt::DType::F32, {2, 3, 5, 5}});
  std::vector<Value*> bn = {x};
  for (const char* p : {"scale", "bias", "mean", "var"})
    bn.push_back(g.addConstant(p, randomTensor({3}, rng, std::string(p) == "var" ? 0.5f : -1.0f, 2.0f)));
  g.addOutput(g.addNode("BatchNormalization", bn, 1, {}, "bn")->output());
  expectMatchesReference(
      g, {randomTensor({2, 3, 4}, rng), randomTensor({2, 5, 4}, rng), randomTensor({2, 3, 5, 5}, rng)}, "tensor ops");
}

TEST(LlvmErrors, UnsupportedOperatorRunsItsReferenceKernelAndTypeErrorsNameTheNode) {
  {
    Graph g;
    Value* x = g.addInput("x", {rt::DType::F32, {2, 3}});
    rt::AttributeMap a;
    a.set("perm", std::vector<int64_t>{1, 0});
    g.addOutput(g.addNode("Transpose", {x}, 1, a, "my_transpose")->output());
    passes::inferShapes(g);
    // No generated code for Transpose: the step runs its reference kernel.
    JitProgram p = compileJit(g);
    ASSERT_EQ(p.artifact.steps.size(), 1u);
    EXPECT_EQ(p.artifact.steps[0].kernel, "ref.Transpose");
    EXPECT_EQ(p.artifact.steps[0].name, "my_transpose");
    rt::Executor ex(p.artifact, *p.kernels);
    const rt::Tensor y = ex.run({rt::Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6})})[0];
    EXPECT_EQ(y.shape(), (rt::Shape{3, 2}));
    EXPECT_EQ(y.toVector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  }
  {
    Graph g;
    Value* x = g.addInput("x", {rt::DType::I32, {4}});
    g.addOutput(g.addNode("Add", {x, x}, 1, {}, "int_add")->output());
    passes::inferShapes(g);
    try {
      compileJit(g);
      FAIL() << "i32 Add compiled";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("int_add"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("element type i32"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace vdla::cpu::test
