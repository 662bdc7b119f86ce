"""Hardware configurations as objects.

A :class:`Config` holds one accelerator's JSON document; the C++ config layer
parses and validates it (every error names the field and the reason) and
derives its memories and hash. Configs are immutable: :meth:`Config.replace`
returns a changed, validated copy.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _core


def configs() -> List[str]:
    """Names of the shipped configs ("pynq", "ultra96", "zcu104", ...)."""
    return list(_core.config_names())


class Config:
    """One VDLA accelerator configuration (validated on creation)."""

    def __init__(self, document: Union[Mapping[str, Any], str]):
        """From a JSON document (a dict or JSON text)."""
        if isinstance(document, str):
            if not document.lstrip().startswith("{"):
                raise ValueError("Config(text) takes JSON text; use Config.load for a name or a file")
            text = document
        elif isinstance(document, Mapping):
            text = json.dumps(_without_derived(document))
        else:
            raise TypeError("Config takes a dict or JSON text; use Config.load for a name or file")
        canonical = json.loads(_core.config_canonical(text))
        self._derived = canonical.pop("derived")
        self._doc = canonical

    @classmethod
    def load(cls, name_or_path: Union[str, "os.PathLike[str]"]) -> "Config":
        """A shipped config by name, or a JSON file."""
        canonical = json.loads(_core.config_canonical(os.fspath(name_or_path)))
        self = cls.__new__(cls)
        self._derived = canonical.pop("derived")
        self._doc = canonical
        return self

    @staticmethod
    def coerce(value: Union["Config", str, Mapping[str, Any], "os.PathLike[str]"]) -> "Config":
        """A Config from a Config, a name, a file or a dict."""
        if isinstance(value, Config):
            return value
        if isinstance(value, Mapping):
            return Config(value)
        return Config.load(value)

    # ---- the document
    def to_dict(self) -> Dict[str, Any]:
        """The JSON document (without derived quantities), as the config files hold it."""
        return copy.deepcopy(self._doc)

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self._doc, indent=indent)

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        with open(path, "w") as f:
            f.write(self.to_json() + "\n")

    def replace(self, changes: Optional[Mapping[str, Any]] = None, **fields: Any) -> "Config":
        """A validated copy with fields changed.

        Fields are named by their path in the document, with dots or double
        underscores: ``cfg.replace({"gemm.block_in": 32})`` or
        ``cfg.replace(gemm__block_in=32, name="mine")``.
        """
        doc = self.to_dict()
        items = dict(changes or {})
        items.update({k.replace("__", "."): v for k, v in fields.items()})
        for path, value in items.items():
            keys = path.split(".")
            node = doc
            for k in keys[:-1]:
                if not isinstance(node.get(k), dict):
                    raise KeyError(f"config field '{path}': '{k}' is not a section of the config")
                node = node[k]
            if keys[-1] not in node:
                raise KeyError(f"config field '{path}' does not exist (section has: {', '.join(node)})")
            node[keys[-1]] = value
        return Config(doc)

    # ---- derived quantities
    @property
    def name(self) -> str:
        return self._doc["name"]

    @property
    def hash(self) -> str:
        """The configuration hash (hex), stamped into programs and artifacts."""
        return self._derived["hash"]

    @property
    def part(self) -> str:
        return self._doc["target"]["part"]

    @property
    def clock_mhz(self) -> float:
        return self._doc["target"]["clock_mhz"]

    @property
    def gemm(self) -> Dict[str, int]:
        return dict(self._doc["gemm"])

    @property
    def macs_per_cycle(self) -> int:
        return self._derived["macs_per_cycle"]

    @property
    def derived(self) -> Dict[str, Any]:
        """Memories (entries, depth, index bits), MACs per cycle, peak GOPS, hash."""
        return copy.deepcopy(self._derived)

    def __getitem__(self, section: str) -> Any:
        return copy.deepcopy(self._doc[section])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and other.hash == self.hash and other.name == self.name

    def __hash__(self) -> int:
        return hash((self.name, self.hash))

    def __repr__(self) -> str:
        g = self._doc["gemm"]
        return (f"Config({self.name!r}: {g['batch']}x{g['block_in']}x{g['block_out']} at "
                f"{self.clock_mhz:g} MHz on {self.part}, hash {self.hash})")

    def _spec(self) -> str:
        """The form the native module takes."""
        return json.dumps(self._doc)


def _without_derived(doc: Mapping[str, Any]) -> Dict[str, Any]:
    d = dict(doc)
    d.pop("derived", None)
    return d


def config_spec(value: Union[Config, str, Mapping[str, Any], "os.PathLike[str]", None], default: str = "pynq") -> str:
    """What the native module takes for a config argument."""
    if value is None:
        value = default
    return Config.coerce(value)._spec()
