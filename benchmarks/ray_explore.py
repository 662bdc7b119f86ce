#!/usr/bin/env python3
"""An exploration with cycle-accurate confirmations (and optionally yosys
syntheses) on a local Ray cluster against the same exploration run locally.

Starts a Ray head on 127.0.0.1 with --workers CPUs, explores a space for
ResNet-18 on a part, confirms the N fastest points of the Pareto front on the
cycle-accurate simulator (each a Ray task; the models are built on first use
and cached), optionally synthesises M of them with yosys (minutes each), and
checks that every figure equals the local run's: the points, the front, the
measured cycles and the yosys counts. Prints both wall times.

usage: benchmarks/ray_explore.py [--base zcu104] [--confirm 2] [--yosys 0] [--workers 2] [--image-size 224]
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import vdla


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def figures(x: "vdla.Exploration"):
    """What must agree between the two runs (wall times excepted)."""
    points = []
    for p in x.points:
        q = {k: p[k] for k in ("name", "latency_hiding", "latency_ms", "resources", "fits", "on_front")}
        if "confirmed" in p:
            q["confirmed"] = [{k: n[k] for k in ("network", "measured_cycles", "estimated_cycles")}
                              for n in p["confirmed"]["networks"]]
        if "yosys" in p:
            q["yosys"] = {k: p["yosys"][k] for k in ("lut", "ff", "dsp", "bram36", "fits")}
        points.append(q)
    return points, x.document["front"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="zcu104")
    parser.add_argument("--confirm", type=int, default=2)
    parser.add_argument("--yosys", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--image-size", type=int, default=224)
    args = parser.parse_args()
    space = {"base": args.base, "gemm": {"block_in": [16, 32], "block_out": [16, 32, 64]},
             "buffers_kib": {"weight": [256, 512]}, "latency_hiding": [True, False]}
    work = tempfile.mkdtemp(prefix="vdla-ray-explore-")
    common = dict(image_size=args.image_size, confirm=args.confirm, yosys=args.yosys)

    start = time.perf_counter()
    local = vdla.explore(["resnet18"], space, yosys_dir=os.path.join(work, "local-yosys"), progress=True, **common)
    local_s = time.perf_counter() - start
    print(f"local: {local} in {local_s:.1f} s")

    port = free_port()
    ray_bin = os.path.join(os.path.dirname(sys.executable), "ray")
    # A private cluster on 127.0.0.1 without Ray's token authentication, in a
    # process group of its own that is stopped at the end (other clusters on
    # the machine are left alone).
    os.environ["RAY_AUTH_MODE"] = "disabled"
    temp_dir = tempfile.mkdtemp(prefix="vdla-ray-", dir="/tmp")
    head = subprocess.Popen([ray_bin, "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
                             f"--num-cpus={args.workers}", "--include-dashboard=false", "--disable-usage-stats",
                             f"--temp-dir={temp_dir}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    import ray

    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                ray.init(address=f"127.0.0.1:{port}", log_to_driver=False)
                break
            except Exception:
                if time.monotonic() > deadline or head.poll() is not None:
                    raise
                time.sleep(1)
        start = time.perf_counter()
        clustered = vdla.explore(["resnet18"], space, yosys_dir=os.path.join(work, "ray-yosys"), executor="ray",
                                 **common)
        ray_s = time.perf_counter() - start
    finally:
        ray.shutdown()
        os.killpg(head.pid, signal.SIGTERM)
        head.wait(timeout=60)
        shutil.rmtree(temp_dir, ignore_errors=True)
    print(f"ray ({args.workers} workers): {clustered} in {ray_s:.1f} s")

    same = figures(local) == figures(clustered)
    confirmed = [p for p in local.points if "confirmed" in p]
    for p in confirmed:
        for n in p["confirmed"]["networks"]:
            print(f"  confirmed {p['name']} LH {'on' if p['latency_hiding'] else 'off'}: {n['network']} "
                  f"{n['measured_ms']:.2f} ms measured, cost model {100 * n['cost_model_error']:+.1f}%")
    print(json.dumps({"points": len(local.points), "front": len(local.document["front"]),
                      "confirmed": len(confirmed), "synthesised": sum("yosys" in p for p in local.points),
                      "local_seconds": local_s, "ray_seconds": ray_s, "identical": same}))
    shutil.rmtree(work, ignore_errors=True)
    if not same:
        print("FAIL: the Ray run differs from the local run")
        return 1
    print("identical figures from the local run and the Ray cluster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
