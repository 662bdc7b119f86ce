"""vdla.explore and vdla.evaluate with executor="ray" on a real local Ray cluster.

The module starts its own head node (127.0.0.1, a free port, two CPUs, so two
worker processes) with `ray start --head --block` in a process group of its
own, and stops exactly that group at the end, whatever the tests did: other
Ray clusters on the machine are left alone (`ray stop` would stop them too).
Nothing here is skipped: a cluster that does not start fails the tests.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest
import ray

import vdla

from conftest import CLASSES_FILE, PHOTOS_DIR, SMALL

# 2 x 3 x 3 x 2 configs, each with latency hiding on and off: more than 20 valid points.
SPACE = {
    "base": "zcu104",
    "gemm": {"block_in": [16, 32], "block_out": [16, 32, 64]},
    "buffers_kib": {"weight": [128, 256, 512], "input": [32, 64]},
    "latency_hiding": [True, False],
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_command():
    exe = os.path.join(os.path.dirname(sys.executable), "ray")
    return [exe] if os.access(exe, os.X_OK) else [sys.executable, "-m", "ray.scripts.scripts"]


@pytest.fixture(scope="module")
def cluster():
    """The address of a local two-CPU Ray head, with this process connected to it."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    # Ray's sockets live in its temp dir: keep the path short.
    temp_dir = tempfile.mkdtemp(prefix="vdla-ray-", dir="/tmp")
    log_path = os.path.join(temp_dir, "ray-start.log")
    log = open(log_path, "w")
    # Token authentication (Ray's default once ~/.ray/auth_token exists) needs the
    # same token on both sides; this private 127.0.0.1 cluster runs without it.
    saved_auth_mode = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    head = subprocess.Popen(
        ray_command() + ["start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
                         "--num-cpus=2", "--disable-usage-stats", "--include-dashboard=false",
                         f"--temp-dir={temp_dir}"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=dict(os.environ),
        cwd=temp_dir)  # so that the workers' working directory is not the driver's, as on other nodes
    try:
        deadline = time.monotonic() + 120
        while True:
            if head.poll() is not None:
                log.flush()
                pytest.fail(f"ray start exited with {head.returncode}:\n{open(log_path).read()[-4000:]}")
            try:
                ray.init(address=address, log_to_driver=False)
                break
            except Exception as e:  # the head is not up yet
                if time.monotonic() > deadline:
                    log.flush()
                    pytest.fail(f"cannot connect to the Ray head at {address}: {e}\n{open(log_path).read()[-4000:]}")
                time.sleep(1)
        assert ray.cluster_resources().get("CPU") == 2
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        # Stops the head and every process it started (they share its process group).
        if head.poll() is None:
            head.send_signal(signal.SIGTERM)
            try:
                head.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(head.pid, signal.SIGKILL)  # anything left of the group
        except ProcessLookupError:
            pass
        head.wait()
        log.close()
        if saved_auth_mode is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = saved_auth_mode
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def local_exploration():
    return vdla.explore("resnet18", SPACE, image_size=SMALL)


def summary(points):
    return [(p["name"], p["latency_hiding"], p["latency_ms"], p["resources"], p["fits"], p["on_front"],
             p["networks"]) for p in points]


def test_cluster_runs_tasks_in_worker_processes(cluster):
    @ray.remote
    def pid():
        return os.getpid()

    pids = set(ray.get([pid.remote() for _ in range(8)]))
    assert os.getpid() not in pids and len(pids) >= 1


def test_explore_on_ray_equals_local(cluster, local_exploration):
    local = local_exploration
    assert len(local.points) >= 20, "the space must give at least 20 valid points"
    distributed = vdla.explore("resnet18", SPACE, image_size=SMALL, executor="ray")
    print(f"explore on Ray: {len(distributed.points)} points, {len(distributed.front)} on the front")
    assert len(distributed.points) == len(local.points)
    # The same deterministic C++ evaluation ran elsewhere: exactly the same numbers.
    assert summary(distributed.points) == summary(local.points)
    assert distributed.document["front"] == local.document["front"]
    assert [p["name"] for p in distributed.front] == [p["name"] for p in local.front]
    assert len(distributed.front) >= 2
    assert distributed.refused == local.refused
    assert distributed.marked == local.marked
    assert distributed.csv == local.csv
    assert distributed.document["stats"]["evaluated"] == len(local.points)


def test_explore_on_ray_with_more_tasks_than_cpus(cluster, local_exploration):
    distributed = vdla.explore("resnet18", SPACE, image_size=SMALL, executor="ray", ray_tasks=7)
    assert summary(distributed.points) == summary(local_exploration.points)


def test_evaluate_on_ray_equals_local(cluster, mobilenet_llvm, photos, photo_labels):
    local = vdla.evaluate(mobilenet_llvm, PHOTOS_DIR, photo_labels, classes=CLASSES_FILE)
    distributed = vdla.evaluate(mobilenet_llvm, PHOTOS_DIR, photo_labels, classes=CLASSES_FILE, executor="ray")
    assert distributed.executor == "ray" and local.executor == "local"
    assert len(distributed.per_image) == len(photos) == 32
    keys = ("image", "label", "predicted", "predicted_name", "top", "top1_correct", "topk_correct")
    for a, b in zip(distributed.per_image, local.per_image):
        assert {k: a[k] for k in keys} == {k: b[k] for k in keys}
        assert a["probability"] == pytest.approx(b["probability"], rel=1e-6)
    assert distributed.top1 == local.top1 >= 0.5
    assert distributed.topk == local.topk


def test_evaluate_on_ray_on_the_accelerator(cluster, resnet18_vdla_pynq, photos):
    # Each task deserialises the artifact and runs its own functional simulator.
    local = vdla.evaluate(resnet18_vdla_pynq, photos[:6], device="fsim", top=3)
    distributed = vdla.evaluate(resnet18_vdla_pynq, photos[:6], device="fsim", top=3, executor="ray", ray_tasks=3)
    assert [(r["image"], r["top"]) for r in distributed.per_image] == [(r["image"], r["top"]) for r in local.per_image]


def test_evaluate_on_ray_with_relative_paths(cluster, mobilenet_llvm, photos, monkeypatch):
    # Paths relative to the driver's working directory, which the workers do not share.
    monkeypatch.chdir(PHOTOS_DIR.parent)
    relative = [os.path.join(PHOTOS_DIR.name, os.path.basename(p)) for p in photos[:4]]
    local = vdla.evaluate(mobilenet_llvm, relative)
    distributed = vdla.evaluate(mobilenet_llvm, relative, executor="ray")
    assert [r["top"] for r in distributed.per_image] == [r["top"] for r in local.per_image]
    assert [r["image"] for r in distributed.per_image] == [r["image"] for r in local.per_image] == photos[:4]
    by_directory = vdla.evaluate(mobilenet_llvm, PHOTOS_DIR.name, executor="ray", ray_tasks=4)
    assert [r["image"] for r in by_directory.per_image] == photos


def test_explore_on_ray_with_a_relative_model_path(cluster, mobilenet_path, monkeypatch):
    monkeypatch.chdir(mobilenet_path.parent.parent)
    relative = os.path.join(mobilenet_path.parent.name, mobilenet_path.name)
    space = {"base": "zcu104", "latency_hiding": [True, False]}
    local = vdla.explore([relative], space)
    distributed = vdla.explore([relative], space, executor="ray")
    assert summary(distributed.points) == summary(local.points)


def test_ray_needs_a_saveable_artifact(cluster, photos):
    jit = vdla.compile(vdla.load("cnn", image_size=32), target="llvm", library=None)
    with pytest.raises(vdla.Error, match="library='host'"):
        vdla.evaluate(jit, photos[:2], executor="ray")


def test_connects_by_address(cluster, local_exploration):
    # Without a connection, vdla connects to the address given.
    ray.shutdown()
    assert not ray.is_initialized()
    small = {"base": "zcu104", "gemm": {"block_out": [16, 32]}, "latency_hiding": [True, False]}
    distributed = vdla.explore("resnet18", small, image_size=SMALL, executor="ray", ray_address=cluster)
    assert ray.is_initialized()
    # The module's cluster, not a new local one.
    assert ray.get_runtime_context().gcs_address.endswith(":" + cluster.rsplit(":", 1)[1])
    local = vdla.explore("resnet18", small, image_size=SMALL)
    assert summary(distributed.points) == summary(local.points)
