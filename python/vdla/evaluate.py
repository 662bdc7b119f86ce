"""Accuracy of an image classifier over photos, on the local cores or a Ray cluster."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _core, _ray
from .config import Config
from .model import Artifact, Model, compile, load


def image_input(path: Union[str, "os.PathLike[str]"], shape: Sequence[int] = (1, 3, 224, 224)) -> np.ndarray:
    """A photo preprocessed for an ImageNet model's f32[N,3,S,S] input (resize, centre crop, normalise)."""
    return _core.image_input(os.fspath(path), [int(s) for s in shape])


def seeded_input(shape: Sequence[int]) -> np.ndarray:
    """The seeded f32 input (uniform in [-1, 1), the same on every machine) that profiles run without an image."""
    return _core.seeded_input([int(s) for s in shape])


class Evaluation:
    """The result of :func:`evaluate`.

    ``per_image``: one dict per photo (image, label, predicted index and
    name, probability, whether top-1 / top-k hit), ready for
    ``pandas.DataFrame(e.per_image)``; ``top1`` / ``topk`` accuracies over the
    labelled photos (None without labels).
    """

    def __init__(self, per_image: List[Dict[str, Any]], top: int, executor: str, seconds: float):
        self.per_image = per_image
        self.top = top
        self.executor = executor
        self.seconds = seconds

    def _accuracy(self, key: str) -> Optional[float]:
        labelled = [r for r in self.per_image if r.get("label") is not None]
        if not labelled:
            return None
        return sum(bool(r[key]) for r in labelled) / len(labelled)

    @property
    def top1(self) -> Optional[float]:
        return self._accuracy("top1_correct")

    @property
    def topk(self) -> Optional[float]:
        return self._accuracy("topk_correct")

    def to_dict(self) -> Dict[str, Any]:
        return {"images": len(self.per_image), "top": self.top, "top1": self.top1, "topk": self.topk,
                "executor": self.executor, "seconds": self.seconds, "per_image": self.per_image}

    def __repr__(self) -> str:
        acc = "" if self.top1 is None else f", top-1 {self.top1:.3f}, top-{self.top} {self.topk:.3f}"
        return f"Evaluation({len(self.per_image)} images{acc}, {self.executor})"


def _class_names(classes: Union[None, str, "os.PathLike[str]", Sequence[str]]) -> Optional[List[str]]:
    if classes is None:
        return None
    if isinstance(classes, (str, os.PathLike)):
        with open(classes) as f:
            return [line.rstrip("\n") for line in f if line.strip()]
    return list(classes)


def evaluate(model: Union[Artifact, Model, str], images: Union[str, "os.PathLike[str]", Sequence[str]],
             labels: Optional[Sequence[Union[int, str, None]]] = None, *,
             classes: Union[None, str, "os.PathLike[str]", Sequence[str]] = None, target: str = "llvm",
             device: str = "fsim", config: Any = None, top: int = 5, executor: str = "local",
             threads: Optional[int] = None, ray_address: Optional[str] = None, ray_tasks: Optional[int] = None,
             **compile_options: Any) -> Evaluation:
    """Runs an image classifier over photos and scores it.

    images: photo files, or a directory of them (JPEG/PNG, sorted by name).
    labels: per photo its class index or class name (names need ``classes``,
        e.g. ``imagenet_classes.txt``); None leaves the photos unscored.
    model: an artifact, or a model compiled here for ``target`` (with
        ``config`` and ``compile_options``; for Ray its code goes into the
        artifact as a shared library).
    executor: "local" (``threads`` executors side by side, each with its own
        device; default 1 on the cycle simulator, else every core for
        accelerator targets and 1 for host targets, whose kernels already use
        every core) or "ray" (one task per slice of the photos, each a worker
        process with its own simulator).
    """
    import time

    start = time.perf_counter()
    if isinstance(images, (str, os.PathLike)):
        files = list(_core.image_files(os.fspath(images)))
    else:
        files = [os.fspath(p) for p in images]
    if not files:
        raise _core.Error("evaluate: no images given")
    files = [os.path.abspath(f) for f in files]  # Ray workers run in other working directories
    if labels is not None and len(labels) != len(files):
        raise _core.Error(f"evaluate: {len(labels)} labels for {len(files)} images")
    names = _class_names(classes)

    loaded = load(model) if not isinstance(model, (Artifact, Model)) else model
    if isinstance(loaded, Model):
        loaded = compile(loaded, target=target, config=config or "pynq", **compile_options)
    artifact: Artifact = loaded
    config_text = "" if config is None else Config.coerce(config)._spec()

    if executor == "local":
        if threads is None:
            on_accelerator = artifact.target == "vdla"
            threads = 1 if (device == "cycle" or not on_accelerator) else (os.cpu_count() or 1)
        raw = json.loads(_core.evaluate_images(artifact._handle, files, device, config_text, int(top), int(threads)))
    elif executor == "ray":
        ray = _ray.ensure_connected(ray_address)
        blob = ray.put(artifact.to_bytes())
        remote = ray.remote(_ray.evaluate_images_task)
        slices = _ray.chunks(files, ray_tasks or _ray.cluster_cpus(ray))
        raw = []
        for part in ray.get([remote.remote(blob, s, device, config_text, int(top)) for s in slices]):
            raw.extend(part)
    else:
        raise ValueError(f"executor must be 'local' or 'ray', got {executor!r}")

    per_image = []
    for i, r in enumerate(raw):
        label = None if labels is None else labels[i]
        if isinstance(label, str):
            if names is None:
                raise _core.Error(f"evaluate: label '{label}' is a class name; give classes= to map names to indices")
            if label not in names:
                raise _core.Error(f"evaluate: label '{label}' of {files[i]} is not one of the {len(names)} classes")
            label = names.index(label)
        indices = [t["index"] for t in r["top"]]
        row: Dict[str, Any] = {
            "image": r["image"],
            "label": label,
            "predicted": indices[0],
            "probability": r["top"][0]["probability"],
            "top": indices,
            "seconds": r["seconds"],
        }
        if names is not None:
            row["predicted_name"] = names[indices[0]] if indices[0] < len(names) else None
        if label is not None:
            row["top1_correct"] = indices[0] == label
            row["topk_correct"] = label in indices
        per_image.append(row)
    return Evaluation(per_image, int(top), executor, time.perf_counter() - start)
