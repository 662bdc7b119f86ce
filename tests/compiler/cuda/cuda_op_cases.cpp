#include "cuda_op_cases.h"

#include <functional>

#include "vdla/compiler/passes/shape_inference.h"

namespace vdla::cuda::testing {

namespace {

using rt::AttributeMap;
using rt::DType;
using rt::Shape;
using rt::Tensor;
using Ints = std::vector<int64_t>;

rt::TensorType f32(Shape s) { return rt::TensorType{DType::F32, std::move(s), rt::Layout::RowMajor}; }

Tensor seeded(DType dtype, const Shape& shape, uint64_t seed, bool positive = false) {
  Tensor t(dtype, shape);
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const double u = double(state >> 11) / double(1ull << 53);  // [0, 1)
    if (dtype == DType::F32)
      t.data<float>()[i] = static_cast<float>(positive ? 0.25 + 2 * u : 4 * u - 2);
    else if (dtype == DType::I32)
      t.data<int32_t>()[i] = static_cast<int32_t>(u * 200) - 100;
    else if (dtype == DType::I64)
      t.data<int64_t>()[i] = static_cast<int64_t>(u * 200) - 100;
    else if (dtype == DType::U8)
      t.data<uint8_t>()[i] = static_cast<uint8_t>(u * 256);
    else if (dtype == DType::I8)
      t.data<int8_t>()[i] = static_cast<int8_t>(static_cast<int>(u * 256) - 128);
  }
  return t;
}

// Builds a graph from a body that adds nodes; outputs are the body's result.
using Body = std::function<std::vector<ir::Value*>(ir::Graph&)>;

OpCase make(const std::string& name, Body body) {
  return {name, [name, body] {
            auto g = std::make_unique<ir::Graph>();
            g->name = name;
            for (ir::Value* v : body(*g)) g->addOutput(v);
            passes::inferShapes(*g);
            return g;
          }};
}

AttributeMap attrs(std::initializer_list<std::pair<const char*, rt::Attribute>> list) {
  AttributeMap m;
  for (const auto& [k, v] : list) m.set(k, v);
  return m;
}

ir::Value* weights(ir::Graph& g, const std::string& name, Shape s, uint64_t seed) {
  return g.addConstant(name, seeded(DType::F32, s, seed));
}
ir::Value* ints(ir::Graph& g, const std::string& name, Ints v) {
  return g.addConstant(name, Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v));
}

// One node `op` on graph inputs of the given shapes.
OpCase unaryCase(const std::string& op, Shape shape, AttributeMap a = {}, bool positive = false) {
  return make(op, [=](ir::Graph& g) {
    ir::Value* x = g.addInput(positive ? "x_pos" : "x", f32(shape));
    return g.addNode(op, {x}, 1, a, op)->outputs();
  });
}

OpCase binaryCase(const std::string& name, const std::string& op, Shape sa, Shape sb, AttributeMap a = {},
                  DType dtype = DType::F32) {
  return make(name, [=](ir::Graph& g) {
    ir::Value* x = g.addInput("a", rt::TensorType{dtype, sa, rt::Layout::RowMajor});
    ir::Value* y = g.addInput(op == "Div" ? "b_pos" : "b", rt::TensorType{dtype, sb, rt::Layout::RowMajor});
    return g.addNode(op, {x, y}, 1, a, name)->outputs();
  });
}

OpCase convCase(const std::string& name, Shape x, Shape w, bool bias, AttributeMap a) {
  return make(name, [=](ir::Graph& g) {
    ir::Value* in = g.addInput("x", f32(x));
    std::vector<ir::Value*> ins = {in, weights(g, "w", w, 3)};
    if (bias) ins.push_back(weights(g, "b", {w[0]}, 4));
    return g.addNode("Conv", ins, 1, a, name)->outputs();
  });
}

rt::TensorType typed(DType t, Shape s) { return rt::TensorType{t, std::move(s), rt::Layout::RowMajor}; }

template <typename T>
ir::Value* scalar(ir::Graph& g, const std::string& name, T v) {
  return g.addConstant(name, Tensor::fromVector<T>({}, {v}));
}

// The integer operators of quantised graphs, with zero points and scales per
// tensor and per channel, both integer types, broadcasting and every
// vdla.QConv form (wrapping, wide product, residual, padding value).
void appendIntegerCases(std::vector<OpCase>& c) {
  c.push_back(make("convinteger_u8_zero_points", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", typed(DType::U8, {1, 4, 9, 9}));
    ir::Value* w = g.addConstant("w", seeded(DType::U8, {6, 4, 3, 3}, 21));
    return g
        .addNode("ConvInteger", {x, w, scalar<uint8_t>(g, "xz", 131), scalar<uint8_t>(g, "wz", 120)}, 1,
                 attrs({{"pads", Ints{1, 1, 1, 1}}}), "convint")
        ->outputs();
  }));
  c.push_back(make("qlinearconv_u8_per_channel_bias", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", typed(DType::U8, {2, 8, 10, 10}));
    std::vector<float> ws(16);
    for (int i = 0; i < 16; ++i) ws[i] = 0.002f + 0.0005f * i;
    ir::Value* w = g.addConstant("w", seeded(DType::I8, {16, 8, 3, 3}, 22));
    return g
        .addNode("QLinearConv",
                 {x, scalar<float>(g, "xs", 0.02f), scalar<uint8_t>(g, "xz", 128), w,
                  g.addConstant("ws", Tensor::fromVector<float>({16}, ws)), scalar<int8_t>(g, "wz", 0),
                  scalar<float>(g, "ys", 0.05f), scalar<uint8_t>(g, "yz", 120),
                  g.addConstant("b", seeded(DType::I32, {16}, 23))},
                 1, attrs({{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}), "qconv")
        ->outputs();
  }));
  c.push_back(make("qlinearconv_i8_depthwise", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", typed(DType::I8, {1, 6, 11, 11}));
    ir::Value* w = g.addConstant("w", seeded(DType::I8, {6, 1, 3, 3}, 24));
    return g
        .addNode("QLinearConv",
                 {x, scalar<float>(g, "xs", 0.03f), scalar<int8_t>(g, "xz", -4), w, scalar<float>(g, "ws", 0.01f),
                  scalar<int8_t>(g, "wz", 3), scalar<float>(g, "ys", 0.04f), scalar<int8_t>(g, "yz", 5)},
                 1, attrs({{"group", int64_t{6}}, {"pads", Ints{1, 1, 1, 1}}}), "dw")
        ->outputs();
  }));
  c.push_back(make("qlinearconv3d_u8", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", typed(DType::U8, {1, 3, 5, 6, 6}));
    ir::Value* w = g.addConstant("w", seeded(DType::U8, {4, 3, 3, 3, 3}, 34));
    return g
        .addNode("QLinearConv",
                 {x, scalar<float>(g, "xs", 0.02f), scalar<uint8_t>(g, "xz", 128), w, scalar<float>(g, "ws", 0.003f),
                  scalar<uint8_t>(g, "wz", 127), scalar<float>(g, "ys", 0.1f), scalar<uint8_t>(g, "yz", 128)},
                 1, attrs({{"pads", Ints{1, 1, 1, 1, 1, 1}}, {"strides", Ints{1, 2, 2}}}), "qconv3d")
        ->outputs();
  }));
  c.push_back(make("qlinearconv_1d_no_zero_points", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", typed(DType::U8, {2, 4, 20}));
    ir::Value* w = g.addConstant("w", seeded(DType::U8, {5, 4, 3}, 25));
    return g
        .addNode("QLinearConv",
                 {x, scalar<float>(g, "xs", 0.01f), nullptr, w, scalar<float>(g, "ws", 0.004f), nullptr,
                  scalar<float>(g, "ys", 0.5f), nullptr},
                 1, attrs({{"pads", Ints{1, 2}}}), "conv1d")
        ->outputs();
  }));
  auto qconv = [](const std::string& name, bool residual, bool wide, int64_t x_zero_point, int64_t residual_shift = 0) {
    return make(name, [=](ir::Graph& g) {
      ir::Value* x = g.addInput("x", typed(DType::I8, {1, 8, 9, 9}));
      std::vector<ir::Value*> ins = {x, g.addConstant("w", seeded(DType::I8, {12, 8, 3, 3}, 26)),
                                     g.addConstant("bias1", seeded(DType::I32, {12}, 27))};
      std::vector<int32_t> mult(12);
      for (int i = 0; i < 12; ++i) mult[i] = wide ? 3000 + 977 * i : 5 + i;
      ins.push_back(g.addConstant("mult", Tensor::fromVector<int32_t>({12}, mult)));
      ins.push_back(g.addConstant("bias2", wide ? Tensor(DType::I32, {12}) : seeded(DType::I32, {12}, 28)));
      if (residual) {
        ins.push_back(g.addInput("r", typed(DType::I8, {1, 12, 5, 5})));
        ins.push_back(g.addConstant("residual_mult", seeded(DType::I32, {12}, 29)));
      }
      AttributeMap a = attrs({{"strides", Ints{2, 2}},
                              {"pads", Ints{1, 1, 1, 1}},
                              {"shift1", int64_t{wide ? 2 : 6}},
                              {"shift2", int64_t{wide ? 20 : 4}},
                              {"clip_lo", int64_t{-100}},
                              {"clip_hi", int64_t{90}},
                              {"x_zero_point", x_zero_point},
                              {"wide_product", int64_t{wide}}});
      if (residual_shift) a.set("residual_shift", residual_shift);
      return g.addNode("QConv", ins, 1, a, name, "vdla")->outputs();
    });
  };
  c.push_back(qconv("vdla_qconv", false, false, 0));
  c.push_back(qconv("vdla_qconv_residual_pad_value", true, false, -7));
  c.push_back(qconv("vdla_qconv_wide_residual", true, true, 3));
  c.push_back(qconv("vdla_qconv_wide_residual_shift", true, true, 3, 9));
  c.push_back(make("matmulinteger_batched_zero_points", [](ir::Graph& g) {
    ir::Value* a = g.addInput("a", typed(DType::U8, {2, 5, 70}));
    ir::Value* b = g.addConstant("b", seeded(DType::U8, {70, 9}, 30));
    ir::Value* bz = g.addConstant("bz", seeded(DType::U8, {9}, 31));
    return g.addNode("MatMulInteger", {a, b, scalar<uint8_t>(g, "az", 77), bz}, 1, {}, "mmi")->outputs();
  }));
  c.push_back(make("qlinearmatmul_i8_broadcast", [](ir::Graph& g) {
    ir::Value* a = g.addInput("a", typed(DType::I8, {3, 4, 16}));
    ir::Value* b = g.addInput("b", typed(DType::I8, {16, 6}));
    std::vector<float> bs = {0.01f, 0.02f, 0.015f, 0.03f, 0.005f, 0.025f};
    return g
        .addNode("QLinearMatMul",
                 {a, scalar<float>(g, "as", 0.04f), scalar<int8_t>(g, "az", 2), b,
                  g.addConstant("bs", Tensor::fromVector<float>({6}, bs)), scalar<int8_t>(g, "bz", -1),
                  scalar<float>(g, "ys", 0.3f), scalar<int8_t>(g, "yz", -10)},
                 1, {}, "qmm")
        ->outputs();
  }));
  for (bool quantised : {true, false})
    c.push_back(make(quantised ? "qgemm_u8_transb_bias" : "qgemm_float_output", [quantised](ir::Graph& g) {
      ir::Value* a = g.addInput("a", typed(DType::U8, {5, 20}));
      std::vector<float> bs(7);
      for (int i = 0; i < 7; ++i) bs[i] = 0.01f + 0.002f * i;
      std::vector<ir::Value*> ins = {a,
                                     scalar<float>(g, "as", 0.02f),
                                     scalar<uint8_t>(g, "az", 100),
                                     g.addConstant("b", seeded(DType::I8, {7, 20}, 32)),
                                     g.addConstant("bs", Tensor::fromVector<float>({7}, bs)),
                                     g.addConstant("bz", Tensor(DType::I8, {7})),
                                     g.addConstant("c", seeded(DType::I32, {7}, 33))};
      if (quantised) {
        ins.push_back(scalar<float>(g, "ys", 0.2f));
        ins.push_back(scalar<uint8_t>(g, "yz", 90));
      }
      return g.addNode("QGemm", ins, 1, attrs({{"transB", int64_t{1}}, {"alpha", 0.75}}), "qgemm", "com.microsoft")
          ->outputs();
    }));
  for (const char* op : {"QLinearAdd", "QLinearMul"})
    for (DType t : {DType::U8, DType::I8})
      c.push_back(make(std::string(op) + (t == DType::U8 ? "_u8" : "_i8"), [op, t](ir::Graph& g) {
        ir::Value* a = g.addInput("a", typed(t, {2, 3, 4}));
        ir::Value* b = g.addInput("b", typed(t, {3, 1}));
        auto zp = [&](const std::string& n, int v) {
          return t == DType::U8 ? scalar<uint8_t>(g, n, static_cast<uint8_t>(v + 128))
                                : scalar<int8_t>(g, n, static_cast<int8_t>(v));
        };
        return g
            .addNode(op,
                     {a, scalar<float>(g, "as", 0.05f), zp("az", 3), b, scalar<float>(g, "bs", 0.07f), zp("bz", -9),
                      scalar<float>(g, "cs", 0.09f), zp("cz", 1)},
                     1, {}, "qbin", "com.microsoft")
            ->outputs();
      }));
  for (bool channels_last : {false, true})
    c.push_back(
        make(channels_last ? "qlinear_global_average_pool_nhwc" : "qlinear_global_average_pool",
             [channels_last](ir::Graph& g) {
               ir::Value* x = g.addInput("x", typed(DType::U8, channels_last ? Shape{2, 4, 4, 6} : Shape{2, 5, 7, 7}));
               return g
                   .addNode("QLinearGlobalAveragePool",
                            {x, scalar<float>(g, "xs", 0.02f), scalar<uint8_t>(g, "xz", 120),
                             scalar<float>(g, "ys", 0.01f), scalar<uint8_t>(g, "yz", 130)},
                            1, attrs({{"channels_last", int64_t{channels_last}}}), "qgap", "com.microsoft")
                   ->outputs();
             }));
}

}  // namespace

Tensor caseInput(const ir::Value& input, uint64_t seed) {
  return seeded(input.type().dtype, input.type().shape, seed, input.name().find("pos") != std::string::npos);
}

std::vector<OpCase> operatorCases() {
  std::vector<OpCase> c;
  // Convolutions: the implicit GEMM (each tile size), grouped, depthwise
  // (direct kernel), 1-D, dilated, SAME padding, and the fused residual Add.
  c.push_back(convCase("conv3x3_bias_relu", {2, 8, 12, 12}, {16, 8, 3, 3}, true,
                       attrs({{"pads", Ints{1, 1, 1, 1}}, {"activation", std::string("Relu")}})));
  c.push_back(convCase("conv1x1_stride2", {1, 16, 9, 9}, {24, 16, 1, 1}, false, attrs({{"strides", Ints{2, 2}}})));
  c.push_back(convCase("conv_large_tile", {4, 16, 32, 32}, {64, 16, 3, 3}, true, attrs({{"pads", Ints{1, 1, 1, 1}}})));
  c.push_back(convCase("conv_grouped", {1, 8, 10, 10}, {12, 4, 3, 3}, true, attrs({{"group", int64_t{2}}})));
  c.push_back(convCase("conv_depthwise_clip", {2, 6, 11, 11}, {6, 1, 3, 3}, true,
                       attrs({{"group", int64_t{6}},
                              {"strides", Ints{2, 2}},
                              {"pads", Ints{1, 1, 1, 1}},
                              {"activation", std::string("Clip")},
                              {"activation_min", 0.0},
                              {"activation_max", 6.0}})));
  c.push_back(convCase("conv1d", {2, 4, 20}, {5, 4, 3}, true, attrs({{"pads", Ints{1, 2}}})));
  // 3-D windows (NCDHW): the implicit GEMM, grouped, depthwise, pooling.
  c.push_back(convCase("conv3d_strided_padded", {2, 4, 6, 7, 8}, {6, 4, 3, 3, 3}, true,
                       attrs({{"pads", Ints{1, 0, 1, 1, 1, 0}}, {"strides", Ints{2, 1, 2}}})));
  c.push_back(convCase("conv3d_grouped_dilated", {1, 6, 7, 6, 6}, {4, 3, 2, 3, 2}, false,
                       attrs({{"group", int64_t{2}}, {"dilations", Ints{2, 1, 2}}})));
  c.push_back(convCase("conv3d_depthwise", {1, 5, 5, 6, 7}, {5, 1, 3, 3, 3}, true,
                       attrs({{"group", int64_t{5}}, {"pads", Ints{1, 1, 1, 1, 1, 1}}})));
  c.push_back(make("maxpool3d", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({2, 3, 7, 8, 9}));
    return g
        .addNode("MaxPool", {x}, 1,
                 attrs({{"kernel_shape", Ints{3, 2, 3}}, {"strides", Ints{2, 2, 2}}, {"pads", Ints{1, 0, 1, 1, 0, 1}}}),
                 "pool3d")
        ->outputs();
  }));
  c.push_back(make("averagepool3d_include_pad_ceil", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({1, 2, 6, 7, 5}));
    return g
        .addNode("AveragePool", {x}, 1,
                 attrs({{"kernel_shape", Ints{2, 3, 3}},
                        {"strides", Ints{2, 2, 2}},
                        {"pads", Ints{0, 1, 1, 1, 1, 0}},
                        {"count_include_pad", int64_t{1}},
                        {"ceil_mode", int64_t{1}}}),
                 "avg3d")
        ->outputs();
  }));
  c.push_back(convCase("conv_dilated", {1, 3, 15, 15}, {4, 3, 3, 3}, false,
                       attrs({{"dilations", Ints{2, 2}}, {"pads", Ints{2, 1, 2, 1}}})));
  c.push_back(convCase("conv_same_upper", {1, 3, 10, 9}, {4, 3, 4, 4}, true,
                       attrs({{"auto_pad", std::string("SAME_UPPER")}, {"strides", Ints{2, 2}}})));
  c.push_back(make("conv_residual_relu", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({2, 8, 7, 7}));
    ir::Value* r = g.addInput("r", f32({2, 8, 7, 7}));
    ir::Value* y = g.addNode("Conv", {x, weights(g, "w", {8, 8, 3, 3}, 5), weights(g, "b", {8}, 6)}, 1,
                             attrs({{"pads", Ints{1, 1, 1, 1}}}), "conv")
                       ->output(0);
    return g.addNode("Add", {r, y}, 1, attrs({{"activation", std::string("Relu")}}), "add")->outputs();
  }));
  // Matrix products.
  c.push_back(make("gemm_transB_bias", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({3, 40}));
    return g
        .addNode("Gemm", {x, weights(g, "w", {33, 40}, 7), weights(g, "b", {33}, 8)}, 1,
                 attrs({{"transB", int64_t{1}}, {"activation", std::string("Relu")}}), "fc")
        ->outputs();
  }));
  c.push_back(make("gemm_transA_alpha_beta", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({35, 6}));
    return g
        .addNode("Gemm", {x, weights(g, "w", {35, 37}, 9), weights(g, "c", {6, 37}, 10)}, 1,
                 attrs({{"transA", int64_t{1}}, {"alpha", 0.5}, {"beta", 2.0}}), "gemm")
        ->outputs();
  }));
  c.push_back(binaryCase("matmul_2d", "MatMul", {5, 70}, {70, 9}));
  c.push_back(binaryCase("matmul_batched_broadcast", "MatMul", {2, 3, 4, 5}, {5, 6}));
  c.push_back(binaryCase("matmul_batch_both", "MatMul", {2, 1, 4, 5}, {3, 5, 2}));
  c.push_back(binaryCase("matmul_vector", "MatMul", {7}, {7, 3}));
  // Elementwise.
  for (const char* op : {"Relu", "Neg", "Abs", "Sigmoid", "Tanh", "Exp", "HardSwish"})
    c.push_back(unaryCase(op, {2, 3, 17}));
  c.push_back(unaryCase("Sqrt", {4, 33}, {}, true));
  c.push_back(unaryCase("Reciprocal", {4, 33}, {}, true));
  c.push_back(unaryCase("LeakyRelu", {3, 50}, attrs({{"alpha", 0.1}})));
  c.push_back(unaryCase("HardSigmoid", {3, 50}, attrs({{"alpha", 0.3}, {"beta", 0.4}})));
  c.push_back(binaryCase("add_broadcast", "Add", {2, 3, 4}, {3, 1}));
  c.push_back(binaryCase("add_relu", "Add", {2, 3, 4}, {2, 3, 4}, attrs({{"activation", std::string("Relu")}})));
  c.push_back(binaryCase("sub_scalar", "Sub", {5, 6}, {}));
  c.push_back(binaryCase("mul_rows", "Mul", {4, 1, 6}, {1, 5, 6}));
  c.push_back(binaryCase("div", "Div", {3, 8}, {3, 8}));
  c.push_back(binaryCase("add_int32", "Add", {4, 5}, {5}, {}, DType::I32));
  c.push_back(binaryCase("mul_int64", "Mul", {6}, {6}, {}, DType::I64));
  // Cast (ONNX `to`: 1 f32, 2 u8, 3 i8, 6 i32, 7 i64, 9 bool): truncation,
  // saturation at the bounds, NaN to 0, integer narrowing, to bool.
  auto castCase = [](const std::string& name, DType in, double scale, int64_t to, bool nan = false) {
    return make(name, [=](ir::Graph& g) {
      ir::Value* x = g.addInput("x", rt::TensorType{in, {3, 41}, rt::Layout::RowMajor});
      if (nan) x = g.addNode("Sqrt", {x}, 1, {}, "sqrt")->output(0);  // negative inputs give NaN
      if (scale != 1) {
        ir::Value* k = in == DType::F32
                           ? g.addConstant("k", Tensor::fromVector<float>({}, {static_cast<float>(scale)}))
                           : g.addConstant("k", Tensor::fromVector<int32_t>({}, {static_cast<int32_t>(scale)}));
        x = g.addNode("Mul", {x, k}, 1, {}, "scale")->output(0);
      }
      return g.addNode("Cast", {x}, 1, attrs({{"to", to}}), name)->outputs();
    });
  };
  c.push_back(castCase("cast_f32_i8_saturates", DType::F32, 100, 3));
  c.push_back(castCase("cast_f32_u8_saturates", DType::F32, 200, 2));
  c.push_back(castCase("cast_f32_i32_saturates", DType::F32, 2e9, 6));
  c.push_back(castCase("cast_f32_i64", DType::F32, 1e3, 7));
  c.push_back(castCase("cast_nan_to_i32", DType::F32, 1, 6, true));
  c.push_back(castCase("cast_f32_bool", DType::F32, 1, 9));
  c.push_back(castCase("cast_i64_f32", DType::I64, 1, 1));
  c.push_back(castCase("cast_i32_i8_wraps", DType::I32, 3, 3));
  // QuantizeLinear / DequantizeLinear, per tensor and per axis, u8 and i8.
  c.push_back(make("quantize_u8_zero_point", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({2, 3, 7}));
    ir::Value* s = g.addConstant("s", Tensor::fromVector<float>({}, {0.0125f}));
    ir::Value* z = g.addConstant("z", Tensor::fromVector<uint8_t>({}, {100}));
    return g.addNode("QuantizeLinear", {x, s, z}, 1, {}, "q")->outputs();
  }));
  c.push_back(make("quantize_i8_per_axis_round_trip", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({2, 4, 5}));
    ir::Value* s = g.addConstant("s", Tensor::fromVector<float>({4}, {0.01f, 0.02f, 0.5f, 0.003f}));
    ir::Value* z = g.addConstant("z", Tensor::fromVector<int8_t>({4}, {0, -3, 5, 0}));
    ir::Value* q = g.addNode("QuantizeLinear", {x, s, z}, 1, {}, "q")->output(0);
    ir::Value* s2 = g.addConstant("s2", Tensor::fromVector<float>({5}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f}));
    return g.addNode("DequantizeLinear", {q, s2}, 1, attrs({{"axis", int64_t{-1}}}), "dq")->outputs();
  }));
  c.push_back(make("dequantize_u8", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({3, 11}));
    ir::Value* s = g.addConstant("s", Tensor::fromVector<float>({}, {0.02f}));
    ir::Value* z = g.addConstant("z", Tensor::fromVector<uint8_t>({}, {128}));
    ir::Value* q = g.addNode("QuantizeLinear", {x, s, z}, 1, {}, "q")->output(0);
    return g.addNode("DequantizeLinear", {q, s, z}, 1, {}, "dq")->outputs();
  }));
  c.push_back(make("quantize_i32_input", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", rt::TensorType{DType::I32, {4, 9}, rt::Layout::RowMajor});
    ir::Value* s = g.addConstant("s", Tensor::fromVector<float>({}, {0.75f}));
    ir::Value* z = g.addConstant("z", Tensor::fromVector<int8_t>({}, {-7}));
    return g.addNode("QuantizeLinear", {x, s, z}, 1, {}, "q")->outputs();
  }));
  c.push_back(make("clip_inputs", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({3, 40}));
    ir::Value* lo = g.addConstant("lo", Tensor::fromVector<float>({}, {-0.5f}));
    ir::Value* hi = g.addConstant("hi", Tensor::fromVector<float>({}, {1.25f}));
    return g.addNode("Clip", {x, lo, hi}, 1, {}, "clip")->outputs();
  }));
  c.push_back(make("clip_min_only", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({3, 40}));
    return g.addNode("Clip", {x, g.addConstant("lo", Tensor::fromVector<float>({}, {0.1f}))}, 1, {}, "clip")->outputs();
  }));
  c.push_back(make("batchnorm", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({2, 5, 4, 3}));
    ir::Value* var = g.addConstant("var", seeded(DType::F32, {5}, 14, true));
    return g
        .addNode("BatchNormalization",
                 {x, weights(g, "scale", {5}, 11), weights(g, "bias", {5}, 12), weights(g, "mean", {5}, 13), var}, 1,
                 attrs({{"epsilon", 1e-3}}), "bn")
        ->outputs();
  }));
  // Softmax family.
  c.push_back(unaryCase("Softmax", {3, 100}, attrs({{"axis", int64_t{-1}}})));
  c.push_back(unaryCase("LogSoftmax", {2, 7, 5}, attrs({{"axis", int64_t{1}}})));
  // Pooling.
  c.push_back(unaryCase("MaxPool", {2, 3, 13, 13},
                        attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}})));
  c.push_back(make("maxpool_ceil", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({1, 2, 10, 10}));
    return g
        .addNode("MaxPool", {x}, 1,
                 attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}}), "pool")
        ->outputs();
  }));
  c.push_back(unaryCase("AveragePool", {2, 3, 9, 9},
                        attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}})));
  c.push_back(make("averagepool_include_pad", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({1, 2, 8, 8}));
    return g
        .addNode("AveragePool", {x}, 1,
                 attrs({{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}, {"count_include_pad", int64_t{1}}}),
                 "pool")
        ->outputs();
  }));
  c.push_back(unaryCase("GlobalAveragePool", {2, 5, 7, 7}));
  c.push_back(unaryCase("GlobalMaxPool", {2, 5, 6, 9}));
  // Reductions.
  c.push_back(unaryCase("ReduceMean", {3, 4, 5}, attrs({{"axes", Ints{1}}})));
  c.push_back(unaryCase("ReduceSum", {3, 4, 5}, attrs({{"axes", Ints{0, 2}}, {"keepdims", int64_t{0}}})));
  c.push_back(unaryCase("ReduceMax", {3, 4, 5}, attrs({{"axes", Ints{2}}})));
  c.push_back(unaryCase("ReduceMin", {3, 4, 5}));
  // Data movement.
  c.push_back(unaryCase("Flatten", {2, 3, 4}, attrs({{"axis", int64_t{1}}})));
  c.push_back(make("reshape", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({2, 3, 4}));
    return g.addNode("Reshape", {x, ints(g, "shape", {4, -1})}, 1, {}, "reshape")->outputs();
  }));
  c.push_back(unaryCase("Transpose", {2, 3, 4, 5}, attrs({{"perm", Ints{0, 2, 3, 1}}})));
  c.push_back(make("concat", [](ir::Graph& g) {
    ir::Value* a = g.addInput("a", f32({2, 3, 4}));
    ir::Value* b = g.addInput("b", f32({2, 1, 4}));
    ir::Value* d = g.addInput("d", f32({2, 5, 4}));
    return g.addNode("Concat", {a, b, d}, 1, attrs({{"axis", int64_t{1}}}), "concat")->outputs();
  }));
  for (const char* mode : {"constant", "reflect", "edge"})
    c.push_back(make(std::string("pad_") + mode, [mode](ir::Graph& g) {
      ir::Value* x = g.addInput("x", f32({2, 3, 5, 4}));
      return g
          .addNode("Pad", {x, ints(g, "pads", {0, 0, 2, 1, 0, 1, 1, 3})}, 1, attrs({{"mode", std::string(mode)}}),
                   "pad")
          ->outputs();
    }));
  c.push_back(make("gather", [](ir::Graph& g) {
    ir::Value* x = g.addInput("x", f32({3, 6, 2}));
    return g.addNode("Gather", {x, ints(g, "idx", {5, 0, -1, 2})}, 1, attrs({{"axis", int64_t{1}}}), "gather")
        ->outputs();
  }));
  appendIntegerCases(c);
  return c;
}

}  // namespace vdla::cuda::testing
