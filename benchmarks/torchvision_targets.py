#!/usr/bin/python3
"""Every torchvision classifier on every target: exports each builder
(weights=None, seeded, scripts/onnx/export_torchvision.py) at the given
opsets, runs it with `vdla run` on targets ref and llvm (logits against
torch's: max |ours - torch| / max |torch|) and vdla (int8 on the functional
simulator, calibrated on the tool's seeded synthetic samples: cosine
similarity of its logits to torch's fp32 logits and whether the top-1 class
agrees), and prints one Markdown table row per model and opset with the
reason for whatever failed.

Run with Debian's /usr/bin/python3 (python3-torch, torchvision, onnx, numpy):

    benchmarks/torchvision_targets.py --vdla build/slice/tools/vdla/vdla [--models all] \
        [--opsets 13,17] [--targets ref,llvm,vdla] [--work /tmp/tv_targets] [--timeout 900]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import onnx
import onnx.numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
EXPORTER = os.path.join(HERE, "..", "scripts", "onnx", "export_torchvision.py")
TOLERANCE = 1e-4  # the CI's bound on ref and llvm


def export_all(models, opset, work):
    """Exports what the cache under `work` lacks and returns the requested
    models' export status. The cache keeps every model exported so far, so a
    later run with another model list exports only the new ones and reports
    exactly the models it was asked for."""
    out = os.path.join(work, f"opset{opset}")
    status_path = os.path.join(out, "export_status.json")
    cached = {"models": {}, "all": False}
    if os.path.exists(status_path):
        with open(status_path) as f:
            cached = json.load(f)
        cached.setdefault("all", False)
    wanted = None if models == "all" else [m for m in models.split(",") if m]
    if wanted is None:
        missing = [] if cached["all"] else ["all"]
    else:
        missing = [m for m in wanted if m not in cached["models"]]
    if missing:
        subprocess.run([sys.executable, EXPORTER, out, "--models", ",".join(missing), "--opset", str(opset),
                        "--keep-going"], check=True)
        with open(status_path) as f:  # the exporter's status of this run
            fresh = json.load(f)["models"]
        cached["models"].update(fresh)
        cached["all"] = cached["all"] or missing == ["all"]
        with open(status_path, "w") as f:
            json.dump(cached, f, indent=1)
    if wanted is None:
        return out, cached["models"]
    return out, {m: cached["models"][m] for m in wanted if m in cached["models"]}


def first_error_line(text):
    for line in text.splitlines():
        if "error" in line.lower() or "not supported" in line or "unsupported" in line:
            return line.strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1].strip() if lines else "failed without a message"


def run_target(vdla, case_dir, target, timeout):
    """Returns (logits or None, seconds, error message)."""
    data = os.path.join(case_dir, "test_data_set_0")
    input_npy = os.path.join(case_dir, "input.npy")
    if not os.path.exists(input_npy):
        tensor = onnx.TensorProto()
        with open(os.path.join(data, "input_0.pb"), "rb") as f:
            tensor.ParseFromString(f.read())
        np.save(input_npy, onnx.numpy_helper.to_array(tensor))
    out_dir = os.path.join(case_dir, "out_" + target)
    os.makedirs(out_dir, exist_ok=True)
    command = [vdla, "run", os.path.join(case_dir, "model.onnx"), "--target", target, "--input", input_npy,
               "--save-outputs", out_dir]
    start = time.time()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.time() - start, f"over {timeout} s"
    seconds = time.time() - start
    if done.returncode != 0:
        return None, seconds, first_error_line(done.stderr + done.stdout)
    outputs = [f for f in os.listdir(out_dir) if f.endswith(".npy")]
    if len(outputs) != 1:
        return None, seconds, f"{len(outputs)} outputs saved"
    return np.load(os.path.join(out_dir, outputs[0])), seconds, ""


def torch_logits(case_dir):
    tensor = onnx.TensorProto()
    with open(os.path.join(case_dir, "test_data_set_0", "output_0.pb"), "rb") as f:
        tensor.ParseFromString(f.read())
    return onnx.numpy_helper.to_array(tensor)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vdla", required=True, help="the vdla tool")
    parser.add_argument("--models", default="all")
    parser.add_argument("--opsets", default="13,17")
    parser.add_argument("--targets", default="ref,llvm,vdla")
    parser.add_argument("--work", default="/tmp/vdla_torchvision_targets")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per model and target")
    args = parser.parse_args()
    targets = args.targets.split(",")
    print("| model | opset | input | exports? | ref max rel err | llvm max rel err | vdla cosine | vdla top-1 = torch |"
          " status / reason |")
    print("|---|---|---|---|---|---|---|---|---|")
    for opset in (int(o) for o in args.opsets.split(",")):
        out, status = export_all(args.models, opset, args.work)
        for name, st in status.items():
            row = {"ref": "-", "llvm": "-", "cos": "-", "top1": "-"}
            problems = []
            if not st["exported"]:
                problems.append("export: " + st["error"])
            else:
                case_dir = os.path.join(out, "torchvision_" + name)
                want = torch_logits(case_dir).astype(np.float64)
                scale = np.abs(want).max()
                for target in targets:
                    got, seconds, error = run_target(args.vdla, case_dir, target, args.timeout)
                    if got is None:
                        problems.append(f"{target}: {error}")
                        continue
                    got = got.astype(np.float64).reshape(want.shape)
                    if target == "vdla":
                        cos = float((got * want).sum() / (np.linalg.norm(got) * np.linalg.norm(want)))
                        row["cos"] = f"{cos:.4f}"
                        row["top1"] = "yes" if got.argmax() == want.argmax() else "no"
                    else:
                        err = float(np.abs(got - want).max() / scale)
                        row[target] = f"{err:.2g} ({seconds:.0f} s)"
                        if not err <= TOLERANCE:
                            problems.append(f"{target}: error {err:.2g} over {TOLERANCE:g}")
            verdict = "; ".join(problems) if problems else "ok"
            print(f"| {name} | {opset} | {st['input_size']} | {'yes' if st['exported'] else 'no'} | {row['ref']} |"
                  f" {row['llvm']} | {row['cos']} | {row['top1']} | {verdict} |", flush=True)


if __name__ == "__main__":
    main()
