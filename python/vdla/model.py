"""Models, compilation and artifacts."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _core
from .config import Config, config_spec

PathLike = Union[str, "os.PathLike[str]"]


def targets() -> Dict[str, bool]:
    """Every compile target and whether this build can compile for it."""
    return {t: bool(_core.is_target_available(t)) for t in _core.compile_targets()}


def target_stages(target: str) -> List[str]:
    """The stages a target runs after the graph passes, in order (each is a
    record of the compile report's ``passes``)."""
    return list(_core.target_stages(target))


class Model:
    """A network from an ONNX file or the zoo (see :func:`load`)."""

    def __init__(self, handle: "_core.Model"):
        self._handle = handle

    @property
    def spec(self) -> str:
        """The file or zoo name it came from."""
        return self._handle.spec

    @property
    def kind(self) -> str:
        return self._handle.kind

    @property
    def inputs(self) -> List[Dict[str, Any]]:
        """Inputs: name, dtype (NumPy name) and shape."""
        return json.loads(self._handle.io_json())["inputs"]

    @property
    def outputs(self) -> List[Dict[str, Any]]:
        return json.loads(self._handle.io_json())["outputs"]

    def summary(self) -> Dict[str, Any]:
        """Node count, operator histogram and parameter bytes, as imported."""
        return json.loads(self._handle.summary_json())

    def ir(self) -> str:
        """The graph in the IR's text form, as imported."""
        return self._handle.ir()

    def compile(self, target: str = "llvm", **options: Any) -> "Artifact":
        """Same as :func:`compile` with this model."""
        return compile(self, target=target, **options)

    def __repr__(self) -> str:
        return f"Model({self.spec!r}, {self.kind})"


class Artifact:
    """A compiled model: what ``vdla compile`` writes and every device runs."""

    def __init__(self, handle: "_core.Artifact"):
        self._handle = handle

    @property
    def target(self) -> str:
        return self._handle.target

    @property
    def config_name(self) -> str:
        return self._handle.config_name

    @property
    def config_hash(self) -> str:
        return self._handle.config_hash

    def info(self) -> Dict[str, Any]:
        """Inputs, outputs, steps (name, kernel), parameters, blob sizes and metadata."""
        return json.loads(self._handle.info_json())

    @property
    def inputs(self) -> List[Dict[str, Any]]:
        return self.info()["inputs"]

    @property
    def outputs(self) -> List[Dict[str, Any]]:
        return self.info()["outputs"]

    @property
    def steps(self) -> List[Dict[str, str]]:
        return self.info()["steps"]

    @property
    def report(self) -> Dict[str, Any]:
        """The compile report: passes; for target vdla every layer's placement and estimate."""
        return json.loads(self._handle.report_json)

    @property
    def saveable(self) -> bool:
        """False when its CPU code was JIT-compiled into this process (library=None)."""
        return not self._handle.in_process_code

    def save(self, path: PathLike, sign: Optional[PathLike] = None) -> None:
        """Writes the artifact file; ``sign``: a secret key file (:func:`keygen`) to sign it with."""
        if sign is None:
            self._handle.save(os.fspath(path))
        else:
            _core.save_signed(self._handle, os.fspath(path), os.fspath(sign))

    def to_bytes(self) -> bytes:
        return self._handle.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> "Artifact":
        return cls(_core.artifact_from_bytes(data))

    def __reduce__(self):
        # Pickling (and so Ray) moves the artifact as its file's bytes.
        return (Artifact.from_bytes, (self.to_bytes(),))

    def session(self, device: str = "fsim", config: Any = None, profile: bool = False):
        from .session import Session

        return Session(self, device=device, config=config, profile=profile)

    def __repr__(self) -> str:
        return f"Artifact(target={self.target!r}, config={self.config_name!r}, steps={len(self.steps)})"


def load(spec: Union[PathLike, Model, Artifact], batch: Optional[int] = None, image_size: Optional[int] = None,
         seed: Optional[int] = None) -> Union[Model, Artifact]:
    """A model or an artifact: an ONNX file, a zoo name ("resnet18") or an artifact file.

    ``batch``, ``image_size`` and ``seed`` build a zoo model (its weights come
    from a seeded generator, the same on every machine).
    """
    if isinstance(spec, (Model, Artifact)):
        return spec
    spec = os.fspath(spec)
    if _core.model_kind(spec) == "artifact":
        if batch is not None or image_size is not None or seed is not None:
            raise _core.Error(f"{spec}: batch, image_size and seed apply to zoo models, not artifacts")
        return load_artifact(spec)
    options = {k: v for k, v in (("batch", batch), ("image_size", image_size), ("seed", seed)) if v is not None}
    return Model(_core.load_model(spec, json.dumps(options)))


def load_artifact(path: PathLike) -> Artifact:
    return Artifact(_core.load_artifact(os.fspath(path)))


def keygen(stem: PathLike) -> str:
    """An Ed25519 key pair for signing artifacts: writes STEM.key (secret, owner-only) and STEM.pub.

    Returns the public key in hex."""
    return _core.keygen(os.fspath(stem))


def trust_keys(directory: Optional[PathLike]) -> None:
    """From now on, refuse to load artifacts that no key (``*.pub``) of ``directory`` signed, or that
    were changed after signing; None trusts every artifact again. ``$VDLA_TRUSTED_KEYS`` does the same
    for a whole process."""
    _core.set_trusted_keys("" if directory is None else os.fspath(directory))


def _as_model(model: Union[PathLike, Model]) -> Model:
    loaded = load(model)
    if isinstance(loaded, Artifact):
        what = os.fspath(model) if isinstance(model, (str, os.PathLike)) else "this artifact"
        raise _core.Error(f"{what}: is a compiled artifact; this needs a model (an ONNX file or a zoo name)")
    return loaded


def _calibration_samples(calibration: Any) -> List[List[np.ndarray]]:
    if calibration is None or isinstance(calibration, (str, os.PathLike)):
        return []
    samples = []
    for sample in calibration:
        if isinstance(sample, np.ndarray):
            samples.append([sample])
        else:
            samples.append([np.asarray(a) for a in sample])
    return samples


def compile_options(target: str, config: Any, latency_hiding: bool, allow_im2col: bool, strip_qdq: bool,
                    cpu_kernels: str, library: Optional[str], optimize: bool, cuda_arch: Optional[Sequence[str]],
                    cuda_tf32: bool, offload_pooling: bool = True, offload_adds: bool = True,
                    fuse_additions: bool = True, chain_layers: bool = True,
                    allow_unfold: bool = True, fuse_expansions: bool = True) -> Dict[str, Any]:
    options: Dict[str, Any] = {
        "target": target,
        "config": config_spec(config),
        "latency_hiding": bool(latency_hiding),
        "allow_im2col": bool(allow_im2col),
        "allow_unfold": bool(allow_unfold),
        "offload_pooling": bool(offload_pooling),
        "offload_adds": bool(offload_adds),
        "fuse_additions": bool(fuse_additions),
        "fuse_expansions": bool(fuse_expansions),
        "chain_layers": bool(chain_layers),
        "strip_qdq": bool(strip_qdq),
        "cpu_kernels": cpu_kernels,
        "library": library or "",
        "optimize": bool(optimize),
        "cuda_tf32": bool(cuda_tf32),
    }
    if cuda_arch is not None:
        options["cuda_arch"] = list(cuda_arch)
    return options


def compile(model: Union[PathLike, Model], target: str = "llvm", config: Any = "pynq", *,
            latency_hiding: bool = True, calibration: Any = None, calibration_count: int = 8,
            allow_im2col: bool = True, strip_qdq: bool = False, cpu_kernels: str = "llvm",
            library: Optional[str] = "host", optimize: bool = True, cuda_arch: Optional[Sequence[str]] = None,
            cuda_tf32: bool = False, offload_pooling: bool = True, offload_adds: bool = True,
            fuse_additions: bool = True, chain_layers: bool = True, allow_unfold: bool = True,
            fuse_expansions: bool = True) -> Artifact:
    """Compiles a model for a target ("ref", "llvm", "vdla", "cuda").

    config: the accelerator (a :class:`Config`, a shipped name, a JSON file or
        a dict); stamped into every artifact, binding for target "vdla".
    latency_hiding: target vdla: double-buffered tiles whose loads and stores
        overlap compute.
    offload_pooling: target vdla: max pooling on the accelerator where it can
        run (False keeps it on the CPU).
    offload_adds: target vdla: quantised additions (QLinearAdd) on the
        accelerator where an integer form reproduces the CPU's result exactly.
    fuse_additions: target vdla: such an addition fused into the convolution
        that feeds it where the cost model prefers one layer to two.
    fuse_expansions: target vdla, configs with STORE INP (inp_writeback): a 1x1
        expansion and the depthwise layer it feeds as one program that keeps
        the expanded tensor on chip, where the cost model prefers it.
    chain_layers: target vdla: consecutive offloaded layers whose tensors stay
        on the device run as one program, each layer's first loads overlapping
        the last store of the layer before.
    allow_im2col, allow_unfold: target vdla: let the cost model run a
        convolution with few input channels over host-side im2col'd or
        column-unfolded input.
    calibration: target vdla, fp32 models: a directory of photos (the first
        ``calibration_count``, sorted), or samples (arrays, or one list of
        arrays per sample); default a few seeded synthetic samples.
    library: where the CPU code goes (targets llvm and vdla): "host",
        "armv7" or "aarch64" compile a shared library into the artifact (it can
        be saved and sent to other processes); None JIT-compiles into this
        process only.
    """
    m = _as_model(model)
    options = compile_options(target, config, latency_hiding, allow_im2col, strip_qdq, cpu_kernels, library, optimize,
                              cuda_arch, cuda_tf32, offload_pooling, offload_adds, fuse_additions,
                              chain_layers, allow_unfold, fuse_expansions)
    directory = os.fspath(calibration) if isinstance(calibration, (str, os.PathLike)) else ""
    handle = _core.compile(m._handle, json.dumps(options), _calibration_samples(calibration), directory,
                           int(calibration_count))
    return Artifact(handle)
