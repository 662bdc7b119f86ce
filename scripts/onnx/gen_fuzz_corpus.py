#!/usr/bin/python3
"""Writes small valid ONNX models that seed the importer's fuzzer: one per
operator family and opset-dependent form (attributes vs inputs, auto_pad,
legacy Softmax, quantised operators, Constant nodes, typed and raw data).

Run with /usr/bin/python3 (Debian's python3-onnx).
Usage: gen_fuzz_corpus.py OUT_DIR
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, mapping, numpy_helper

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=13, extra_opsets=()):
    graph = helper.make_graph(nodes, "seed", inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    return helper.make_model(graph, opset_imports=opsets, producer_name="vdla-fuzz-seed")


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def init(name, array, raw=True):
    if raw:
        return numpy_helper.from_array(array, name)
    # Typed fields (float_data, int64_data, ...) instead of raw_data.
    return helper.make_tensor(name, mapping.NP_TYPE_TO_TENSOR_TYPE[array.dtype], array.shape,
                              array.flatten().tolist())


def seeds():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    yield "relu", model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", ["N", 4])], [vi("y", None)])
    yield "conv_bn_relu_pool_gemm", model([
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"], epsilon=1e-5),
        helper.make_node("Relu", ["n"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1),
    ], [vi("x", [1, 3, 8, 8])], [vi("y", None)], [
        init("w", w), init("b", np.zeros(4, np.float32), raw=False), init("s", np.ones(4, np.float32)),
        init("bb", np.zeros(4, np.float32)), init("m", np.zeros(4, np.float32)), init("v", np.ones(4, np.float32)),
        init("fw", rng.standard_normal((2, 4)).astype(np.float32)), init("fb", np.zeros(2, np.float32)),
    ])
    yield "conv_autopad", model([
        helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2]),
    ], [vi("x", [1, 3, 7, 7])], [vi("y", None)], [init("w", w)], opset=11)
    yield "avgpool_same_lower", model([
        helper.make_node("AveragePool", ["x"], ["y"], auto_pad="SAME_LOWER", kernel_shape=[3, 3], count_include_pad=1),
    ], [vi("x", [1, 2, 5, 5])], [vi("y", None)], opset=11)
    yield "clip_opset10", model([helper.make_node("Clip", ["x"], ["y"], min=0.0, max=6.0)],
                                [vi("x", [2, 3])], [vi("y", None)], opset=10)
    yield "clip_opset13", model([helper.make_node("Clip", ["x", "lo", "hi"], ["y"])], [vi("x", [2, 3])],
                                [vi("y", None)], [init("lo", np.array(0, np.float32)), init("hi", np.array(6, np.float32))])
    yield "pad_opset10", model([helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 0, 1], mode="reflect")],
                               [vi("x", [2, 3])], [vi("y", None)], opset=10)
    yield "pad_opset18_axes", model([helper.make_node("Pad", ["x", "p", "", "a"], ["y"])], [vi("x", [2, 3])],
                                    [vi("y", None)], [init("p", np.array([1, 2], np.int64)),
                                                      init("a", np.array([1], np.int64))], opset=18)
    yield "squeeze_unsqueeze_opset11", model([
        helper.make_node("Squeeze", ["x"], ["s"], axes=[0]),
        helper.make_node("Unsqueeze", ["s"], ["y"], axes=[2]),
    ], [vi("x", [1, 3, 4])], [vi("y", None)], opset=11)
    yield "reshape_transpose_concat", model([
        helper.make_node("Constant", [], ["shape"], value=numpy_helper.from_array(np.array([4, -1], np.int64))),
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Transpose", ["r"], ["t"], perm=[1, 0]),
        helper.make_node("Concat", ["t", "t"], ["y"], axis=0),
    ], [vi("x", [2, 2, 3])], [vi("y", None)])
    yield "softmax_legacy", model([helper.make_node("Softmax", ["x"], ["y"])], [vi("x", [2, 3, 4])],
                                  [vi("y", None)], opset=11)
    yield "reducemean_shape_gather", model([
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[1], keepdims=1),
        helper.make_node("Shape", ["m"], ["s"]),
        helper.make_node("Gather", ["s", "i"], ["y"], axis=0),
    ], [vi("x", [2, 3])], [vi("y", None)], [init("i", np.array([0], np.int64))])
    yield "dropout_sigmoid_cast", model([
        helper.make_node("Dropout", ["x"], ["d"], ratio=0.5),
        helper.make_node("Sigmoid", ["d"], ["s"]),
        helper.make_node("Cast", ["s"], ["y"], to=TensorProto.INT32),
    ], [vi("x", [5])], [vi("y", None)], opset=10)
    yield "qdq_qlinear", model([
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["q"]),
        helper.make_node("QLinearConv", ["q", "xs", "xz", "qw", "ws", "wz", "ys", "yz"], ["qc"], pads=[1, 1, 1, 1]),
        helper.make_node("QLinearGlobalAveragePool", ["qc", "ys", "yz", "ys", "yz"], ["qg"], domain="com.microsoft"),
        helper.make_node("QLinearAdd", ["qg", "ys", "yz", "qg", "ys", "yz", "ys", "yz"], ["qa"], domain="com.microsoft"),
        helper.make_node("DequantizeLinear", ["qa", "ys", "yz"], ["y"]),
    ], [vi("x", [1, 3, 4, 4])], [vi("y", None)], [
        init("xs", np.array(0.05, np.float32)), init("xz", np.array(128, np.uint8)),
        init("qw", rng.integers(-10, 10, (2, 3, 3, 3)).astype(np.int8)), init("ws", np.array(0.02, np.float32)),
        init("wz", np.array(0, np.int8)), init("ys", np.array(0.1, np.float32)), init("yz", np.array(128, np.uint8)),
    ], extra_opsets=[("com.microsoft", 1)])
    yield "qlinearmatmul", model([
        helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"]),
    ], [vi("a", [2, 3], TensorProto.UINT8)], [vi("y", None)], [
        init("as", np.array(0.1, np.float32)), init("az", np.array(0, np.uint8)),
        init("b", rng.integers(0, 255, (3, 2)).astype(np.uint8)), init("bs", np.array(0.1, np.float32)),
        init("bz", np.array(0, np.uint8)), init("ys", np.array(0.5, np.float32)), init("yz", np.array(0, np.uint8)),
    ], opset=10)
    yield "matmul_sub_mul_div", model([
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Sub", ["m", "w2"], ["s"]),
        helper.make_node("Mul", ["s", "s"], ["p"]),
        helper.make_node("Div", ["p", "w2"], ["y"]),
    ], [vi("x", [2, 3])], [vi("y", None)], [init("w", np.ones((3, 2), np.float32)),
                                             init("w2", np.full((2,), 2.0, np.float32))])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    count = 0
    for name, m in seeds():
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())
        count += 1
    print(f"gen_fuzz_corpus: wrote {count} seed models to {out}")


if __name__ == "__main__":
    main()
