"""Charts that display inline in Jupyter (``_repr_svg_``)."""

from __future__ import annotations

import os
from typing import Union


class SvgChart:
    """An SVG drawn by the toolkit; shows itself in Jupyter, saves to a file."""

    def __init__(self, svg: str, title: str = ""):
        self.svg = svg
        self.title = title

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        with open(path, "w") as f:
            f.write(self.svg)

    def __repr__(self) -> str:
        return f"SvgChart({self.title!r}, {len(self.svg)} characters)"
