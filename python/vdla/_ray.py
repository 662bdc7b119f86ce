"""The Ray side of the package: connecting to a cluster and the remote tasks.

Each task calls the same C++ unit of work as the local run
(explore::evaluateDesignPoint, api::evaluateImages), so a cluster's answer is
the local answer computed elsewhere.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

from . import _core

# Per worker process: the networks of an exploration, prepared (optimised and
# quantised) once and reused by every task of it that lands here.
_workloads: Dict[str, Any] = {}


def ray_module():
    try:
        import ray  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise _core.Error("executor='ray' needs Ray (pip install ray)") from e
    return ray


def ensure_connected(address: Optional[str]) -> Any:
    """Ray, initialised: at `address` if given, else the running cluster or a new local one."""
    ray = ray_module()
    if ray.is_initialized() and address:
        current = ray.get_runtime_context().gcs_address
        if current != address:
            raise _core.Error(f"Ray is already connected to {current}; cannot use ray_address={address!r} too "
                              "(ray.shutdown() first)")
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(include_dashboard=False, log_to_driver=False)
    return ray


def cluster_cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def chunks(items: Sequence[Any], parts: int) -> List[List[Any]]:
    """Contiguous slices, as even as possible, none empty."""
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(list(items[start:end]))
        start = end
    return out


def _prepared(options_json: str) -> Any:
    workloads = _workloads.get(options_json)
    if workloads is None:
        workloads = _core.prepare_networks(options_json)
        _workloads[options_json] = workloads
    return workloads


def evaluate_points_task(options_json: str, points: List[Any], part: str) -> List[Any]:
    """Ray task body: design points evaluated on this worker (cost and resource models)."""
    return json.loads(_core.evaluate_points(json.dumps(points), _prepared(options_json), part))


def confirm_point_task(options_json: str, point: Any) -> Any:
    """Ray task body: one design point's networks run on this worker's cycle-accurate simulator."""
    return json.loads(_core.confirm_points(json.dumps([point]), _prepared(options_json)))[0]


def synthesise_task(config: Any, directory: str) -> Any:
    """Ray task body: one design point's config synthesised with yosys on this worker."""
    return json.loads(_core.synthesise_configs(json.dumps([config]), directory))[0]


def evaluate_images_task(artifact_bytes: bytes, images: List[str], device: str, config: str, top: int) -> List[Any]:
    """Ray task body: a slice of the photos run on this worker."""
    artifact = _core.artifact_from_bytes(artifact_bytes)
    return json.loads(_core.evaluate_images(artifact, images, device, config, top, 1))
