#!/usr/bin/python3
"""Writes ONNX's backend node tests for the operators VDLA imports.

Debian ships onnx's test-case generators but not their data. This runs the
generators (onnx.backend.test.case.node) and writes, for every selected case,
the same layout as `python -m onnx.backend.test.cmd_tools generate-data`:

    OUT/<case>/model.onnx
    OUT/<case>/test_data_set_<i>/{input,output}_<j>.pb

Selection is by name: test_<prefix> or test_<prefix>_..., for the prefixes
below, which name the operators the importer supports. Variants the importer
refuses (training mode, doubles, argmax outputs, ...) are selected too: the C++
runner checks that they fail with a clear error.

Run with /usr/bin/python3 (Debian's python3-onnx), not a pyenv interpreter.
Usage: gen_node_tests.py OUT_DIR [--stamp FILE]
"""
import argparse
import os
import shutil
import sys

import numpy as np

# onnx 1.12's case generators use aliases that numpy 1.24 removed.
for _alias, _type in (("bool", bool), ("object", object), ("float", float), ("int", int),
                      ("str", str), ("complex", complex), ("long", int), ("unicode", str)):
    if _alias not in np.__dict__:
        setattr(np, _alias, _type)

PREFIXES = [
    "conv", "batchnorm", "relu", "clip", "add", "sub", "mul", "div", "maxpool", "averagepool",
    "globalaveragepool", "flatten", "reshape", "gemm", "matmul", "softmax", "concat", "pad",
    "constant_pad", "reflect_pad", "edge_pad", "identity", "dropout", "transpose", "squeeze",
    "unsqueeze", "shape", "gather", "reduce_mean", "cast", "sigmoid", "quantizelinear",
    "dequantizelinear", "qlinearconv", "qlinearmatmul", "constant", "tanh", "exp", "neg", "sqrt",
    "reciprocal", "reduce_sum", "reduce_max", "reduce_min", "globalmaxpool", "logsoftmax",
    "abs", "leakyrelu", "hardsigmoid", "hardswish", "convinteger", "matmulinteger",
]
# "_expanded" cases restate an operator as a function of others; only these
# are kept (their expansions use supported operators and Constant nodes).
EXPANDED_KEPT = ["softmax"]

# Other operators whose names share a prefix above.
OTHER_OPERATORS = ["reduce_sum_square"]


def selected(name: str) -> bool:
    rest = name[len("test_"):]
    def matches(p):
        return rest == p or rest.startswith(p + "_")
    if rest.endswith("_expanded") and not any(matches(p) for p in EXPANDED_KEPT):
        return False
    return any(matches(p) for p in PREFIXES) and not any(matches(p) for p in OTHER_OPERATORS)


def write_tensor(path, value, value_info):
    from onnx import numpy_helper
    t = value_info.type
    if t.HasField("sequence_type"):
        proto = numpy_helper.from_list(value, value_info.name)
    elif t.HasField("optional_type"):
        proto = numpy_helper.from_optional(value, value_info.name)
    else:
        proto = numpy_helper.from_array(value, value_info.name)
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--stamp")
    args = parser.parse_args()

    np.random.seed(0)
    import onnx.backend.test.case.node as node_cases

    # A few names are generated twice; like cmd_tools, the last one wins.
    by_name = {c.name: c for c in node_cases.collect_testcases(None) if c.kind == "node" and selected(c.name)}
    cases = list(by_name.values())
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    for case in sorted(cases, key=lambda c: c.name):
        case_dir = os.path.join(args.out, case.name)
        os.makedirs(case_dir)
        with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            set_dir = os.path.join(case_dir, f"test_data_set_{i}")
            os.makedirs(set_dir)
            for j, value in enumerate(inputs):
                write_tensor(os.path.join(set_dir, f"input_{j}.pb"), value, case.model.graph.input[j])
            for j, value in enumerate(outputs):
                write_tensor(os.path.join(set_dir, f"output_{j}.pb"), value, case.model.graph.output[j])
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write("\n".join(sorted(c.name for c in cases)) + "\n")
    print(f"gen_node_tests: wrote {len(cases)} node tests to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
