#!/usr/bin/python3
"""Batch-1 latency of a torchvision model in PyTorch or onnxruntime, for
llvm_latency_bench (which compares them with target llvm). Weights do not
matter for latency, so models are built with weights=None.

  /usr/bin/python3 ort_torch_latency.py torch --model resnet18 --export OUT.onnx [--runs N] [--threads T] [--size S]
  python3          ort_torch_latency.py ort --onnx OUT.onnx [--runs N] [--threads T] [--size S]

Debian's /usr/bin/python3 has torch and torchvision; onnxruntime is the pip
package scripts/setup_python.sh installs into the python3 on PATH. Prints one
line of JSON: {"framework", "median_ms", "min_ms", "times_ms" (every run), "runs",
"threads"}.
"""
import argparse
import json
import statistics
import time

import numpy as np


def measure(fn, runs):
    fn()  # warm-up: first-run allocation and kernel selection
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def run_torch(args):
    import torch
    import torchvision
    builders = {"resnet18": torchvision.models.resnet18, "mobilenetv2": torchvision.models.mobilenet_v2}
    torch.set_num_threads(args.threads)
    model = builders[args.model](weights=None).eval()
    x = torch.randn(1, 3, args.size, args.size)
    if args.export:
        torch.onnx.export(model, x, args.export, opset_version=13, input_names=["input"], output_names=["logits"])
    with torch.no_grad():
        return measure(lambda: model(x), args.runs)


def run_ort(args):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(args.onnx, options, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).standard_normal((1, 3, args.size, args.size)).astype(np.float32)
    name = session.get_inputs()[0].name
    return measure(lambda: session.run(None, {name: x}), args.runs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("framework", choices=["torch", "ort"])
    p.add_argument("--model", default="resnet18")
    p.add_argument("--export")
    p.add_argument("--onnx")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--size", type=int, default=224)
    args = p.parse_args()
    times = run_torch(args) if args.framework == "torch" else run_ort(args)
    print(json.dumps({"framework": args.framework, "median_ms": statistics.median(times), "min_ms": min(times),
                      "times_ms": times, "runs": args.runs, "threads": args.threads}))


if __name__ == "__main__":
    main()
