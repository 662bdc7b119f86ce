"""Running artifacts on NumPy arrays."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Sequence, Union

import numpy as np

from . import _core
from .config import Config
from .model import Artifact, Model, load


def devices() -> List[str]:
    """Device backends of this build ("fsim", "cycle", "hls", "pynq", ...)."""
    return list(_core.device_backends())


class Session:
    """An artifact ready to run, on a device for accelerator targets.

    ``device``: "fsim" (functional simulator), "cycle" (the RTL, cycle-accurate;
    a model for the config is built on first use), "hls" (the HLS C
    simulation), "pynq"/"xrt" (a board). ``config``: the device's config when
    the artifact's is not a shipped one.
    """

    def __init__(self, artifact: Union[Artifact, str], device: str = "fsim", config: Any = None,
                 profile: bool = False):
        if not isinstance(artifact, Artifact):
            loaded = load(artifact)
            if not isinstance(loaded, Artifact):
                raise _core.Error(f"{artifact}: a Session runs a compiled artifact; compile the model first")
            artifact = loaded
        self.artifact = artifact
        self.device = device
        spec = "" if config is None else Config.coerce(config)._spec()
        self._session = _core.Session(artifact._handle, device, spec, bool(profile))
        self._input_names = [i["name"] for i in artifact.inputs]

    def run(self, *inputs: Any) -> List[np.ndarray]:
        """Runs on one array per input (positional, or one dict by input name); returns the outputs.

        The outputs own their memory (no copy is made of them); inputs of the
        model's dtype and shape are required.
        """
        if len(inputs) == 1 and isinstance(inputs[0], Mapping):
            given = dict(inputs[0])
            missing = [n for n in self._input_names if n not in given]
            unknown = [n for n in given if n not in self._input_names]
            if missing or unknown:
                raise _core.Error(f"run: inputs missing {missing}, unknown {unknown} (the model's: {self._input_names})")
            arrays = [given[n] for n in self._input_names]
        else:
            arrays = list(inputs)
        return list(self._session.run([np.asarray(a) for a in arrays]))

    __call__ = run

    def profile(self) -> List[Dict[str, Any]]:
        """Per-step times of the last run (with profile=True), device cycles for offloaded steps."""
        return json.loads(self._session.profile_json())

    def __repr__(self) -> str:
        return f"Session({self.artifact!r}, device={self.device!r})"


def run(model: Union[Artifact, Model, str], *inputs: Any, target: str = "llvm", device: str = "fsim",
        config: Any = None, **compile_options: Any) -> List[np.ndarray]:
    """Runs a model or artifact once (a model is compiled for ``target`` first)."""
    loaded = load(model) if not isinstance(model, (Artifact, Model)) else model
    if isinstance(loaded, Model):
        from .model import compile

        loaded = compile(loaded, target=target, config=config or "pynq", **compile_options)
    return Session(loaded, device=device, config=config).run(*inputs)
