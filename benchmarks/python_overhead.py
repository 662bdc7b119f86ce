#!/usr/bin/env python3
"""What calling a model through the Python package costs over the C++ runtime.

Compiles ResNet-18 (batch 1, 224x224) for the CPU back end (target llvm, code
in the artifact as a shared library), saves it, and times one run of the same
artifact on the same seeded input two ways, in alternating rounds so that
both see the same minutes of the machine:

  C++:    benchmarks/artifact_latency_bench (the runtime's Executor, no Python);
  Python: vdla.Session.run on a NumPy array (input copied in, outputs handed
          out without a copy).

Prints the median of each and the overhead (Python / C++ - 1).

usage: benchmarks/python_overhead.py [--build build/release] [--runs 20] [--rounds 5] [--model resnet18]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import vdla


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build", "release"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--model", default="resnet18")
    args = parser.parse_args()
    bench = os.path.join(args.build, "benchmarks", "artifact_latency_bench")
    if not os.path.exists(bench):
        print(f"python_overhead: {bench} not found (build the release preset first)", file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{args.model}.vdla")
        start = time.perf_counter()
        artifact = vdla.compile(args.model, target="llvm", library="host")
        artifact.save(path)
        print(f"compiled {args.model} for llvm in {time.perf_counter() - start:.1f} s")

        session = vdla.Session(vdla.load_artifact(path))
        shape = artifact.inputs[0]["shape"]
        x = vdla.seeded_input(shape)
        for _ in range(2):
            session.run(x)

        cpp, py = [], []
        for r in range(args.rounds):
            out = subprocess.run([bench, path, "--runs", str(args.runs), "--rounds", "1"], check=True,
                                 capture_output=True, text=True)
            cpp.append(json.loads(out.stdout)["median_seconds"])
            times = []
            for _ in range(args.runs):
                t = time.perf_counter()
                session.run(x)
                times.append(time.perf_counter() - t)
            py.append(float(np.median(times)))
            print(f"round {r + 1}/{args.rounds}: C++ {cpp[-1] * 1e3:.2f} ms, Python {py[-1] * 1e3:.2f} ms")
        c, p = float(np.median(cpp)), float(np.median(py))
        result = {"model": args.model, "cpp_ms": c * 1e3, "python_ms": p * 1e3, "overhead": p / c - 1,
                  "runs": args.runs, "rounds": args.rounds, "threads": os.cpu_count()}
        print(json.dumps(result))
        print(f"{args.model} on llvm: C++ {c * 1e3:.2f} ms, Python {p * 1e3:.2f} ms, overhead {100 * (p / c - 1):+.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
