"""VDLA: hardware/software co-design of deep-learning accelerators on FPGAs.

The package is the toolkit's C++ core (the native module ``vdla._core``) in
Python form: hardware configs as objects, models loaded from ONNX or the zoo,
compiled for a target, run on NumPy arrays on any device, profiled with
latency hiding on and off, design spaces explored and image classifiers
evaluated on the local cores or a Ray cluster. Results are plain dicts and
lists (``pandas.DataFrame(result.points)``); charts show inline in Jupyter.
See docs/python.md.
"""

from ._core import Error, version as _core_version
from .config import Config, configs
from .model import Artifact, Model, compile, keygen, load, load_artifact, target_stages, targets, trust_keys
from .session import Session, devices, run
from .profile import Profile, profile
from .explore import Exploration, explore
from .evaluate import Evaluation, evaluate, image_input, seeded_input

__version__ = _core_version()

__all__ = [
    "Artifact",
    "Config",
    "Error",
    "Evaluation",
    "Exploration",
    "Model",
    "Profile",
    "Session",
    "compile",
    "configs",
    "devices",
    "evaluate",
    "explore",
    "image_input",
    "keygen",
    "load",
    "load_artifact",
    "profile",
    "run",
    "seeded_input",
    "target_stages",
    "targets",
    "trust_keys",
]
