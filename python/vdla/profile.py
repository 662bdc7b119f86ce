"""Per-layer accelerator cycles with latency hiding on and off."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _core
from .charts import SvgChart
from .config import config_spec
from .model import Model, _as_model, compile_options


class Profile:
    """The result of :func:`profile`.

    ``layers`` is one flat dict per (layer, mode), ready for
    ``pandas.DataFrame(p.layers)``; ``report`` is the whole JSON report that
    ``vdla profile --json`` prints; ``outputs`` the network's outputs (first
    mode). Displays its chart in Jupyter.
    """

    def __init__(self, report: Dict[str, Any], svg: str, table: str, outputs: List[np.ndarray]):
        self.report = report
        self.chart = SvgChart(svg, f"{report.get('model', '')} on {report.get('device', '')}")
        self.table = table
        self.outputs = outputs

    @property
    def layers(self) -> List[Dict[str, Any]]:
        rows = []
        for layer in self.report["layers"]:
            for mode in self.report["modes"]:
                row = {k: v for k, v in layer.items() if not k.startswith("latency_hiding_")}
                row["latency_hiding"] = mode
                row.update(layer["latency_hiding_" + mode])
                rows.append(row)
        return rows

    @property
    def totals(self) -> Dict[str, Dict[str, Any]]:
        """Per mode ("on", "off"): cycles, GEMM utilisation, ideal cycles, cost-model error."""
        return {mode: self.report["total_latency_hiding_" + mode] for mode in self.report["modes"]}

    @property
    def host_work(self) -> Dict[str, Dict[str, Any]]:
        """Per mode: the host's share of the run (bytes it transformed, uploaded and downloaded for the
        offloaded layers, its CPU steps, the accelerator's time at the config's clock)."""
        return {mode: self.report["host_work_latency_hiding_" + mode] for mode in self.report["modes"]}

    @property
    def speedup_from_latency_hiding(self) -> Optional[float]:
        return self.report.get("speedup_from_latency_hiding")

    def to_dict(self) -> Dict[str, Any]:
        return self.report

    def _repr_svg_(self) -> str:
        return self.chart.svg

    def __str__(self) -> str:
        return self.table

    def __repr__(self) -> str:
        return f"Profile({self.report.get('model')!r}, {len(self.report['layers'])} layers, modes {self.report['modes']})"


def profile(model: Union[str, Model], config: Any = "pynq", device: str = "fsim",
            latency_hiding: Sequence[bool] = (True, False), input: Optional[np.ndarray] = None, *,
            calibration: Any = None, allow_im2col: bool = True, strip_qdq: bool = False,
            cpu_kernels: str = "llvm", progress: bool = False, allow_unfold: bool = True) -> Profile:
    """Compiles a model for the accelerator once per latency-hiding mode and runs each on a device.

    Cycles are measured on timing devices ("cycle") and the compiler's cost
    model estimates on "fsim"; every layer against its ideal (MACs / MACs per
    cycle). ``input``: default the seeded synthetic input.
    """
    m = _as_model(model)
    if calibration is not None:
        raise _core.Error("profile: calibration is not supported here; compile with vdla.compile to calibrate")
    options = compile_options("vdla", config, True, allow_im2col, strip_qdq, cpu_kernels, None, True, None, False,
                              allow_unfold=allow_unfold)
    report, svg, table, outputs = _core.profile(m._handle, config_spec(config), json.dumps(options),
                                                [bool(x) for x in latency_hiding], device,
                                                None if input is None else np.asarray(input), bool(progress))
    return Profile(json.loads(report), svg, table, list(outputs))
