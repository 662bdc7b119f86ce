"""The worked example of docs/python.md runs as written.

Its ```python blocks form one script: they are concatenated and executed in a
fresh namespace, in a temporary working directory, with VDLA_DATA pointing at
the shared data. (Other code in the guide is fenced as ```py, ```sh or ```text
and is not run.)
"""

import os
import re
from pathlib import Path

import numpy as np

import vdla

from conftest import DATA, REPO

GUIDE = REPO / "docs" / "python.md"


def example_script() -> str:
    blocks = re.findall(r"^```python[ \t]*\n(.*?)^```[ \t]*$", GUIDE.read_text(), flags=re.S | re.M)
    assert blocks, f"{GUIDE} has no ```python blocks"
    return "\n".join(blocks)


def test_the_example_is_one_script():
    script = example_script()
    compile(script, str(GUIDE), "exec")  # valid Python as a whole
    assert "import pandas" not in script and "import ray" not in script
    assert 'os.environ.get("VDLA_DATA", "../shared/data")' in script


def test_the_example_runs(tmp_path, monkeypatch, capsys):
    script = example_script()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VDLA_DATA", str(DATA))
    namespace = {"__name__": "__vdla_docs_example__"}
    exec(compile(script, str(GUIDE), "exec"), namespace)
    printed = capsys.readouterr().out
    assert "European fire salamander" in printed

    # The results the example builds.
    artifact = namespace["artifact"]
    assert isinstance(artifact, vdla.Artifact) and artifact.target == "vdla" and artifact.config_name == "pynq"
    logits = namespace["logits"]
    assert isinstance(logits, np.ndarray) and logits.shape == (1, 1000)
    prof = namespace["prof"]
    assert isinstance(prof, vdla.Profile) and prof.report["device"] == "cycle"
    assert prof.speedup_from_latency_hiding > 1
    sweep = namespace["sweep"]
    assert isinstance(sweep, vdla.Exploration) and len(sweep.points) == 2 and len(sweep.front) >= 1
    evaluation = namespace["evaluation"]
    assert isinstance(evaluation, vdla.Evaluation) and len(evaluation.per_image) == 32
    assert evaluation.top1 >= 0.5

    # The files it writes, in the working directory.
    assert vdla.load("mobilenetv2-pynq.vdla").info() == artifact.info()
    assert Path("mobilenetv2-profile.svg").read_text().lstrip().startswith(("<svg", "<?xml"))
    assert sorted(os.listdir("explore-ultra96")) == ["pareto.svg", "results.csv", "results.json"]
