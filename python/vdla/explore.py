"""Design-space exploration, on the local cores or a Ray cluster."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _core, _ray
from .charts import SvgChart
from .config import Config
from .model import compile_options


class Exploration:
    """The result of :func:`explore`.

    ``points``: one flat dict per design point (config fields, resources, fit,
    per-network latency and utilisation, ``on_front``), ready for
    ``pandas.DataFrame(x.points)``; ``front``: the Pareto front's points, by
    DSP; ``document``: everything, as ``vdla explore`` writes results.json.
    Displays its Pareto chart in Jupyter.
    """

    def __init__(self, document: Dict[str, Any], csv: str, svg: str):
        self.document = document
        self.csv = csv
        self.chart = SvgChart(svg, f"design space on {document.get('part', '')}")

    @property
    def points(self) -> List[Dict[str, Any]]:
        return self.document["points"]

    @property
    def front(self) -> List[Dict[str, Any]]:
        return [self.document["points"][i] for i in self.document["front"]]

    @property
    def refused(self) -> List[Dict[str, str]]:
        return self.document["refused"]

    @property
    def marked(self) -> List[Dict[str, Any]]:
        """The part's shipped configs (or the marks given), evaluated beside the sweep."""
        return self.document["marked"]

    @property
    def part(self) -> str:
        return self.document["part"]

    def save(self, directory: Union[str, "os.PathLike[str]"]) -> None:
        """results.json, results.csv and pareto.svg, as ``vdla explore --out`` writes them."""
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "results.json"), "w") as f:
            json.dump(self.document, f, indent=1)
        with open(os.path.join(directory, "results.csv"), "w") as f:
            f.write(self.csv)
        self.chart.save(os.path.join(directory, "pareto.svg"))

    def _repr_svg_(self) -> str:
        return self.chart.svg

    def __repr__(self) -> str:
        return (f"Exploration({len(self.points)} points on {self.part}, {len(self.document['front'])} on the front, "
                f"{len(self.refused)} refused)")


def explore(networks: Union[str, Sequence[str]] = ("resnet18",), space: Optional[Mapping[str, Any]] = None, *,
            base: Union[str, Config, None] = None, clock_cap_mhz: Optional[float] = None,
            objective: str = "accelerator", executor: str = "local", threads: int = 0, cache: Optional[str] = None, confirm: int = 0,
            yosys: int = 0, yosys_dir: Optional[str] = None, marks: Optional[Sequence[str]] = None,
            batch: Optional[int] = None, image_size: Optional[int] = None, seed: Optional[int] = None,
            allow_im2col: bool = True, strip_qdq: bool = False, ray_address: Optional[str] = None,
            ray_tasks: Optional[int] = None, progress: bool = False) -> Exploration:
    """Sweeps accelerator configurations for networks on the base config's FPGA part.

    space: the design space as ``vdla explore --space`` reads it, e.g.
        ``{"base": "zcu104", "gemm": {"block_in": [16, 32], "block_out": [16, 32]},
        "buffers_kib": {"weight": [256, 512]}, "latency_hiding": [True, False]}``.
    base: the base config (a shipped name or a file; a :class:`Config` is
        saved next to the cache, or to a temporary file).
    executor: "local" (threads on this machine, resumable from ``cache``, a
        JSON-lines file) or "ray" (one Ray task per slice of the points, each
        evaluating them with the same C++ function; connects to
        ``ray_address`` or the running cluster, else starts a local one).
    objective: what the front ranks by: "accelerator" (its latency) or
        "end-to-end" (plus the board CPU's share, ``host_ms`` of each point).
    confirm / yosys: the N fastest points of the front run on the
        cycle-accurate simulator / synthesised with yosys (one after another
        here; with executor "ray", one Ray task each).
    """
    if isinstance(networks, (str, os.PathLike)):
        networks = [networks]
    space_doc: Dict[str, Any] = dict(space or {})
    if base is not None:
        space_doc["base"] = _base_spec(base)
    elif isinstance(space_doc.get("base"), str) and os.path.exists(space_doc["base"]):
        space_doc["base"] = os.path.abspath(space_doc["base"])
    options: Dict[str, Any] = {
        "space": space_doc,
        # Files as absolute paths: Ray workers run in other directories.
        "networks": [os.path.abspath(os.fspath(n)) if os.path.exists(n) else os.fspath(n) for n in networks],
        "model_options": {k: v for k, v in (("batch", batch), ("image_size", image_size), ("seed", seed))
                          if v is not None},
        "compile_options": {"allow_im2col": bool(allow_im2col), "strip_qdq": bool(strip_qdq)},
        "clock_cap_mhz": clock_cap_mhz,
        "objective": objective,
        "threads": int(threads),
        "cache": os.path.abspath(os.fspath(cache)) if cache else "",
        "confirm": int(confirm),
        "yosys": int(yosys),
        "yosys_dir": os.path.abspath(os.fspath(yosys_dir) if yosys_dir else "explore-yosys") if yosys else "",
        "marks": list(marks or []),
        "progress": bool(progress),
    }
    if executor == "local":
        executors = (None, None, None)
    elif executor == "ray":
        executors = _ray_executors(options, ray_address, ray_tasks)
    else:
        raise ValueError(f"executor must be 'local' or 'ray', got {executor!r}")
    document, csv, svg = _core.explore(json.dumps(options), *executors)
    return Exploration(json.loads(document), csv, svg)


def _base_spec(base: Union[str, Config, "os.PathLike[str]"]) -> str:
    """A base config as the native module takes it: a shipped name or an absolute file path (a
    :class:`Config` is written once per hash into the temporary directory)."""
    if not isinstance(base, Config):
        path = os.fspath(base)
        return os.path.abspath(path) if os.path.exists(path) else path
    import tempfile

    directory = os.path.join(tempfile.gettempdir(), "vdla-configs")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{base.name}-{base.hash}.json")
    if not os.path.exists(path):
        base.save(path)
    return path


def _ray_executors(options: Dict[str, Any], address: Optional[str], tasks: Optional[int]):
    """The three kinds of work of an exploration as Ray tasks: the points (a
    task per slice), the front's cycle-accurate confirmations and its yosys
    syntheses (a task per point, each asking for one CPU)."""
    ray = _ray.ensure_connected(address)
    worker_options = dict(options, progress=False, confirm=0, yosys=0)
    options_json = json.dumps(worker_options)
    evaluate_remote = ray.remote(_ray.evaluate_points_task)
    confirm_remote = ray.remote(_ray.confirm_point_task)
    synthesise_remote = ray.remote(_ray.synthesise_task)

    def evaluate(points_json: str, part: str) -> str:
        points = json.loads(points_json)
        slices = _ray.chunks(points, tasks or 2 * _ray.cluster_cpus(ray))
        results: List[Any] = []
        for r in ray.get([evaluate_remote.remote(options_json, s, part) for s in slices]):
            results.extend(r)
        return json.dumps(results)

    def confirm(points_json: str) -> str:
        points = json.loads(points_json)
        return json.dumps(ray.get([confirm_remote.remote(options_json, p) for p in points]))

    def synthesise(configs_json: str, directory: str) -> str:
        configs = json.loads(configs_json)
        return json.dumps(ray.get([synthesise_remote.remote(c, directory) for c in configs]))

    return evaluate, confirm, synthesise
