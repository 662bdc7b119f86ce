// The integer operators of the CPU back end, bit for bit against the
// reference kernels (through the reference executor): vdla.QConv on random
// layers with random zero points, shifts, multipliers that wrap, clips and
// residuals; QuantizeLinear / DequantizeLinear per tensor and per axis;
// QLinearAdd with broadcasting; QLinearGlobalAveragePool; int8 MaxPool,
// Flatten and Reshape; the shared library path; and the error for a layer
// whose weights are not constant.
#include <cstring>

#include "llvm_test_util.h"

namespace vdla::cpu::test {
namespace {

using ir::Graph;
using ir::Value;

int pick(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

template <typename T>
rt::Tensor randomInts(rt::DType dtype, const rt::Shape& shape, std::mt19937& rng, int64_t lo, int64_t hi) {
  rt::Tensor t(dtype, shape);
  std::uniform_int_distribution<int64_t> d(lo, hi);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<T>()[i] = static_cast<T>(d(rng));
  return t;
}

rt::Tensor scalarF(float v) {
  rt::Tensor t(rt::DType::F32, {});
  t.data<float>()[0] = v;
  return t;
}
rt::Tensor scalarQ(rt::DType dtype, int32_t v) {
  rt::Tensor t(dtype, {});
  if (dtype == rt::DType::U8)
    t.data<uint8_t>()[0] = static_cast<uint8_t>(v);
  else
    t.data<int8_t>()[0] = static_cast<int8_t>(v);
  return t;
}

// Runs the typed graph on the reference executor and as JIT code; every
// output must be identical byte for byte.
void expectBitExact(Graph& g, const std::vector<rt::Tensor>& inputs, const std::string& what) {
  passes::inferShapes(g);
  const std::vector<rt::Tensor> want = runReference(g, inputs);
  JitProgram program = compileJit(g);
  const std::vector<rt::Tensor> got = rt::Executor(program.artifact, *program.kernels).run(inputs);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t o = 0; o < got.size(); ++o) {
    ASSERT_EQ(got[o].type(), want[o].type()) << what;
    const size_t elem = rt::dtypeSize(want[o].dtype());
    const auto* a = static_cast<const uint8_t*>(got[o].raw());
    const auto* b = static_cast<const uint8_t*>(want[o].raw());
    int64_t bad = 0;
    for (int64_t i = 0; i < want[o].numElements(); ++i)
      if (std::memcmp(a + i * elem, b + i * elem, elem) != 0 && bad++ < 5)
        ADD_FAILURE() << what << ": output " << o << " element " << i << " differs";
    EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << want[o].numElements() << " elements differ";
  }
}

struct QConvCase {
  rt::Shape x;
  int64_t out_channels, k, stride, pad, dilation, group;
  bool residual;
};

// A vdla.QConv with random parameters. `wide` draws multipliers and biases
// over the whole int32 range so that the 32-bit arithmetic wraps; otherwise
// they are in the ranges the quantiser produces.
// `wide_product` draws the attribute of that name (64-bit product, a
// residual in accumulator units, bias2 zero, multipliers in MULSHR's 26 bits,
// shift2 up to 62).
void runQConv(const QConvCase& c, uint32_t seed, bool wide, bool wide_product = false) {
  std::mt19937 rng(seed);
  Graph g;
  g.name = "qconv";
  Value* x = g.addInput("x", {rt::DType::I8, c.x});
  const int64_t o = c.out_channels;
  std::vector<Value*> ins = {
      x, g.addConstant("w", randomInts<int8_t>(rt::DType::I8, {o, c.x[1] / c.group, c.k, c.k}, rng, -128, 127))};
  const int64_t big = wide ? INT32_MAX : (1 << 15);
  ins.push_back(g.addConstant("bias1", randomInts<int32_t>(rt::DType::I32, {o}, rng, wide ? INT32_MIN : -big, big)));
  if (wide_product)
    ins.push_back(g.addConstant("mult", randomInts<int32_t>(rt::DType::I32, {o}, rng, -(1 << 25), (1 << 25) - 1)));
  else
    ins.push_back(g.addConstant("mult", randomInts<int32_t>(rt::DType::I32, {o}, rng, wide ? INT32_MIN : 1, big)));
  ins.push_back(g.addConstant(
      "bias2", wide_product ? rt::Tensor(rt::DType::I32, {o})
                            : randomInts<int32_t>(rt::DType::I32, {o}, rng, wide ? INT32_MIN : -big, big)));
  std::vector<rt::Tensor> inputs = {randomInts<int8_t>(rt::DType::I8, c.x, rng, -128, 127)};
  rt::AttributeMap a;
  a.set("strides", std::vector<int64_t>{c.stride, c.stride});
  const std::vector<int64_t> pads = {c.pad, c.pad, c.pad + pick(rng, 0, 1), c.pad};
  a.set("pads", pads);
  a.set("dilations", std::vector<int64_t>{c.dilation, c.dilation});
  a.set("group", c.group);
  a.set("shift1", int64_t{pick(rng, 0, 1) ? pick(rng, 1, 31) : 0});
  a.set("shift2", int64_t{pick(rng, 0, wide_product ? 62 : 31)});
  a.set("wide_product", int64_t{wide_product});
  // The wide form's residual multiplier with fractional bits, half the time.
  const int64_t residual_shift = wide_product && c.residual && pick(rng, 0, 1) ? pick(rng, 1, 40) : 0;
  if (residual_shift) a.set("residual_shift", residual_shift);
  const int lo = pick(rng, -128, 0);
  a.set("clip_lo", int64_t{lo});
  a.set("clip_hi", int64_t{pick(rng, lo, 127)});
  a.set("x_zero_point", int64_t{pick(rng, -128, 127)});
  Value* y = nullptr;
  if (c.residual) {
    const int64_t span = (c.k - 1) * c.dilation + 1;
    const rt::Shape ys = {c.x[0], o, (c.x[2] + pads[0] + pads[2] - span) / c.stride + 1,
                          (c.x[3] + pads[1] + pads[3] - span) / c.stride + 1};
    ins.push_back(g.addInput("r", {rt::DType::I8, ys}));
    ins.push_back(g.addConstant(
        "rmult", residual_shift ? randomInts<int32_t>(rt::DType::I32, {o}, rng, -(1 << 25), (1 << 25) - 1)
                                : randomInts<int32_t>(rt::DType::I32, {o}, rng, wide ? INT32_MIN : -big, big)));
    inputs.push_back(randomInts<int8_t>(rt::DType::I8, ys, rng, -128, 127));
  }
  y = g.addNode("QConv", ins, 1, a, "qconv", "vdla")->output();
  g.addOutput(y);
  expectBitExact(g, inputs, "qconv seed " + std::to_string(seed));
}

TEST(LlvmInt8, QConvHandPicked) {
  const std::vector<QConvCase> cases = {
      {{1, 3, 17, 19}, 8, 3, 1, 1, 1, 1, false},     // tiles cut by P and M
      {{1, 16, 8, 8}, 32, 1, 1, 0, 1, 1, true},      // pointwise + residual
      {{1, 3, 23, 23}, 10, 7, 2, 3, 1, 1, false},    // ResNet stem shape
      {{2, 8, 9, 9}, 12, 3, 2, 1, 1, 2, true},       // batch 2, two groups, residual
      {{1, 12, 11, 10}, 12, 3, 2, 1, 1, 12, false},  // depthwise
      {{1, 4, 13, 13}, 6, 3, 1, 2, 2, 1, false},     // dilation
      {{1, 64, 1, 1}, 10, 1, 1, 0, 1, 1, false},     // a dense layer as a 1x1 QConv
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    runQConv(cases[i], 300 + i, false);
    runQConv(cases[i], 400 + i, true);
  }
}

TEST(LlvmInt8, QConvWideProduct) {
  const std::vector<QConvCase> cases = {
      {{1, 3, 17, 19}, 8, 3, 1, 1, 1, 1, false},
      {{1, 3, 23, 23}, 10, 7, 2, 3, 1, 1, false},
      {{2, 8, 9, 9}, 12, 3, 2, 1, 1, 2, false},
      {{1, 12, 11, 10}, 12, 3, 2, 1, 1, 12, false},
      {{1, 64, 1, 1}, 10, 1, 1, 0, 1, 1, false},
      {{1, 16, 8, 8}, 32, 1, 1, 0, 1, 1, true},  // pointwise + residual in the accumulator
      {{2, 8, 9, 9}, 12, 3, 2, 1, 1, 2, true},   // batch 2, two groups, residual
      {{1, 32, 7, 7}, 32, 3, 1, 1, 1, 1, true},  // a ResNet block's second convolution
  };
  for (size_t i = 0; i < cases.size(); ++i)
    for (uint32_t rep = 0; rep < 3; ++rep) runQConv(cases[i], 500 + 10 * uint32_t(i) + rep, rep == 2, true);
}

TEST(LlvmInt8, QConvRandomLayersProperty) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 24; ++trial) {
    const int64_t group = pick(rng, 0, 3) == 0 ? pick(rng, 2, 4) : 1;
    const bool depthwise = pick(rng, 0, 4) == 0;
    const int64_t c = depthwise ? pick(rng, 1, 9) : group * pick(rng, 1, 12);
    QConvCase q;
    q.group = depthwise ? c : group;
    q.out_channels = depthwise ? c : q.group * pick(rng, 1, 20);
    q.k = pick(rng, 1, 5);
    q.stride = pick(rng, 1, 3);
    q.dilation = pick(rng, 0, 3) == 0 ? 2 : 1;
    q.pad = pick(rng, 0, 2);
    const int64_t span = (q.k - 1) * q.dilation + 1;
    q.x = {pick(rng, 1, 2), c, span + pick(rng, 0, 14), span + pick(rng, 0, 14)};
    q.residual = pick(rng, 0, 1) == 1;
    runQConv(q, 1000 + trial, trial % 2 == 1);
  }
}

// QuantizeLinear -> int8 MaxPool -> Flatten -> Reshape -> DequantizeLinear,
// per tensor, with values on exact halves (round half to even) and past the
// int8 range (saturation).
TEST(LlvmInt8, QuantizePoolReshapeDequantize) {
  for (rt::DType dtype : {rt::DType::I8, rt::DType::U8}) {
    std::mt19937 rng(5);
    Graph g;
    Value* x = g.addInput("x", {rt::DType::F32, {2, 3, 9, 7}});
    const int32_t zp = dtype == rt::DType::I8 ? -7 : 130;
    Value* q = g.addNode("QuantizeLinear",
                         {x, g.addConstant("s", scalarF(0.25f)), g.addConstant("z", scalarQ(dtype, zp))}, 1, {}, "q")
                   ->output();
    rt::AttributeMap pool;
    pool.set("kernel_shape", std::vector<int64_t>{3, 3});
    pool.set("strides", std::vector<int64_t>{2, 2});
    pool.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    Value* p = g.addNode("MaxPool", {q}, 1, pool, "pool")->output();
    Value* f = g.addNode("Flatten", {p}, 1, {}, "flatten")->output();
    rt::Tensor shape(rt::DType::I64, {2});
    shape.data<int64_t>()[0] = 6;
    shape.data<int64_t>()[1] = -1;
    Value* r = g.addNode("Reshape", {f, g.addConstant("shape", shape)}, 1, {}, "reshape")->output();
    Value* d = g.addNode("DequantizeLinear",
                         {r, g.addConstant("s2", scalarF(0.25f)), g.addConstant("z2", scalarQ(dtype, zp))}, 1, {}, "dq")
                   ->output();
    g.addOutput(d);
    g.addOutput(p);
    rt::Tensor in = randomTensor({2, 3, 9, 7}, rng, -60, 60);
    for (int64_t i = 0; i < in.numElements(); i += 3)
      in.data<float>()[i] = std::round(in.data<float>()[i] * 8) / 8;  // halves of the step
    in.data<float>()[1] = NAN;
    expectBitExact(g, {in}, std::string("quantize chain ") + rt::dtypeName(dtype));
  }
}

// Per-tensor f32 quantisation multiplies by the scale's reciprocal and
// redoes with the reference's division any chunk holding an element near a
// rounding boundary (nearTieInputs), over several parallel rows and a
// ragged tail.
TEST(LlvmInt8, ReciprocalQuantizeIsExactNearTies) {
  for (rt::DType dtype : {rt::DType::I8, rt::DType::U8}) {
    for (float scale : {0.0187f, 1.0f / 255.0f, 0.017352f, 3.1f}) {
      std::mt19937 rng(11);
      const int64_t n = 2 * 16384 + 777;
      Graph g;
      Value* x = g.addInput("x", {rt::DType::F32, {n}});
      const int32_t zp = dtype == rt::DType::I8 ? -3 : 117;
      g.addOutput(g.addNode("QuantizeLinear",
                            {x, g.addConstant("s", scalarF(scale)), g.addConstant("z", scalarQ(dtype, zp))}, 1, {}, "q")
                      ->output());
      expectBitExact(g, {nearTieInputs(n, scale, rng)},
                     std::string("reciprocal quantize ") + rt::dtypeName(dtype) + " scale " + std::to_string(scale));
    }
  }
}

TEST(LlvmInt8, PerAxisQuantizeDequantize) {
  std::mt19937 rng(6);
  for (int64_t axis : {0, 1, 3}) {
    Graph g;
    const rt::Shape shape = {3, 5, 2, 4};
    Value* x = g.addInput("x", {rt::DType::F32, shape});
    rt::Tensor scale = randomTensor({shape[axis]}, rng, 0.01f, 0.5f);
    rt::Tensor zp = randomInts<int8_t>(rt::DType::I8, {shape[axis]}, rng, -20, 20);
    rt::AttributeMap a;
    a.set("axis", axis);
    Value* q = g.addNode("QuantizeLinear", {x, g.addConstant("s", scale), g.addConstant("z", zp)}, 1, a, "q")->output();
    Value* d =
        g.addNode("DequantizeLinear", {q, g.addConstant("s2", scale), g.addConstant("z2", zp)}, 1, a, "dq")->output();
    g.addOutput(d);
    expectBitExact(g, {randomTensor(shape, rng, -40, 40)}, "per-axis " + std::to_string(axis));
  }
}

TEST(LlvmInt8, QLinearAddBroadcastAndGlobalAveragePool) {
  std::mt19937 rng(8);
  for (rt::DType dtype : {rt::DType::I8, rt::DType::U8}) {
    const bool s8 = dtype == rt::DType::I8;
    for (const rt::Shape& bs : {rt::Shape{2, 8, 5, 5}, rt::Shape{8, 1, 1}, rt::Shape{5}}) {
      Graph g;
      Value* a = g.addInput("a", {dtype, {2, 8, 5, 5}});
      Value* b = g.addInput("b", {dtype, bs});
      auto zp = [&](int v) {
        return g.addConstant("z" + std::to_string(g.nodes().size()) + std::to_string(v),
                             scalarQ(dtype, s8 ? v : v + 128));
      };
      Value* sum = g.addNode("QLinearAdd",
                             {a, g.addConstant("sa", scalarF(0.031f)), zp(3), b, g.addConstant("sb", scalarF(0.047f)),
                              zp(-5), g.addConstant("sc", scalarF(0.05f)), zp(1)},
                             1, {}, "add", "com.microsoft")
                       ->output();
      Value* pooled =
          g.addNode("QLinearGlobalAveragePool",
                    {sum, g.addConstant("px", scalarF(0.05f)), zp(1), g.addConstant("py", scalarF(0.013f)), zp(-2)}, 1,
                    {}, "gap", "com.microsoft")
              ->output();
      g.addOutput(sum);
      g.addOutput(pooled);
      const int64_t lo = s8 ? -128 : 0, hi = s8 ? 127 : 255;
      std::vector<rt::Tensor> inputs;
      if (s8)
        inputs = {randomInts<int8_t>(dtype, {2, 8, 5, 5}, rng, lo, hi), randomInts<int8_t>(dtype, bs, rng, lo, hi)};
      else
        inputs = {randomInts<uint8_t>(dtype, {2, 8, 5, 5}, rng, lo, hi), randomInts<uint8_t>(dtype, bs, rng, lo, hi)};
      expectBitExact(g, inputs, std::string("qlinear ") + rt::dtypeName(dtype) + " " + rt::shapeToString(bs));
    }
  }
}

// The shared library of an int8 graph, loaded by the runtime alone.
TEST(LlvmInt8, SharedLibraryRunsInt8Graph) {
  std::mt19937 rng(9);
  Graph g;
  Value* x = g.addInput("x", {rt::DType::F32, {1, 4, 6, 6}});
  Value* q =
      g.addNode("QuantizeLinear",
                {x, g.addConstant("s", scalarF(0.02f)), g.addConstant("z", scalarQ(rt::DType::I8, 0))}, 1, {}, "q")
          ->output();
  rt::AttributeMap a;
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  a.set("shift1", int64_t{3});
  a.set("shift2", int64_t{12});
  a.set("clip_lo", int64_t{0});
  a.set("clip_hi", int64_t{127});
  Value* y = g.addNode("QConv",
                       {q, g.addConstant("w", randomInts<int8_t>(rt::DType::I8, {5, 4, 3, 3}, rng, -127, 127)),
                        g.addConstant("b1", randomInts<int32_t>(rt::DType::I32, {5}, rng, -500, 500)),
                        g.addConstant("m", randomInts<int32_t>(rt::DType::I32, {5}, rng, 100, 4000)),
                        g.addConstant("b2", randomInts<int32_t>(rt::DType::I32, {5}, rng, -500, 500))},
                       1, a, "conv", "vdla")
                 ->output();
  g.addOutput(y);
  passes::inferShapes(g);
  const std::vector<rt::Tensor> inputs = {randomTensor({1, 4, 6, 6}, rng, -3, 3)};
  const std::vector<rt::Tensor> want = runReference(g, inputs);
  rt::Artifact aot = compileShared(g, CpuTarget::host());
  const std::vector<rt::Tensor> got = rt::Executor(aot).run(inputs);
  ASSERT_EQ(got[0].type(), want[0].type());
  EXPECT_EQ(std::memcmp(got[0].raw(), want[0].raw(), want[0].byteSize()), 0);
}

TEST(LlvmInt8, NonConstantScaleNamesTheNode) {
  Graph g;
  Value* x = g.addInput("x", {rt::DType::F32, {1, 2, 4, 4}});
  Value* scale = g.addInput("scale", {rt::DType::F32, {}});
  g.addOutput(g.addNode("QuantizeLinear", {x, scale, g.addConstant("z", scalarQ(rt::DType::I8, 0))}, 1, {}, "quant7")
                  ->output());
  passes::inferShapes(g);
  try {
    compileJit(g);
    FAIL() << "a run-time scale was accepted";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("node 'quant7' (QuantizeLinear)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("y_scale 'scale' must be a constant"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace vdla::cpu::test
