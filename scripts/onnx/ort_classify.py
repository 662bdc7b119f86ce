#!/usr/bin/env python3
"""Runs an ONNX image classifier with onnxruntime on raw input tensors and
prints the top-k classes of each as JSON lines. The inputs are the exact tensors
the project's own preprocessing produced (little-endian float32, NCHW), so the
comparison checks the model execution alone.

Needs onnxruntime and numpy from PyPI: run it with the `python3` on PATH after
`python3 -m pip install onnxruntime numpy`.

usage: ort_classify.py MODEL --shape 1,3,224,224 [--top 5] [--logits] INPUT.bin...
"""
import argparse
import json
import sys

import numpy as np
import onnxruntime as ort


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--shape", required=True)
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--logits", action="store_true", help="print every output value too")
    args = parser.parse_args()
    shape = [int(d) for d in args.shape.split(",")]
    options = ort.SessionOptions()
    # Full graph optimisation is what users run; onnxruntime then executes QDQ
    # models with its integer kernels.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    input_name = session.get_inputs()[0].name
    for path in args.inputs:
        data = np.fromfile(path, dtype="<f4")
        if data.size != np.prod(shape):
            sys.exit(f"ort_classify: {path} holds {data.size} floats, expected {np.prod(shape)}")
        logits = session.run(None, {input_name: data.reshape(shape)})[0].reshape(-1)
        order = np.argsort(-logits, kind="stable")[: args.top]
        line = {"input": path, "top": [int(i) for i in order], "scores": [float(logits[i]) for i in order]}
        if args.logits:
            line["logits"] = [float(v) for v in logits]  # float32 -> double is exact
        print(json.dumps(line))


if __name__ == "__main__":
    main()
