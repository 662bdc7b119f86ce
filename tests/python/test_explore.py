"""vdla.explore and vdla.Exploration on the local cores (Ray: test_ray.py)."""

import csv
import io
import itertools
import json

import pytest

import vdla

from conftest import SMALL

# 2 x 2 x 2 configs (some refused by the ISA's field widths), each with latency hiding on and off.
SPACE = {
    "base": "zcu104",
    "gemm": {"block_in": [16, 32], "block_out": [16, 32]},
    "buffers_kib": {"weight": [256, 512]},
    "latency_hiding": [True, False],
}
POINT_KEYS = {"name", "hash", "batch", "block_in", "block_out", "macs_per_cycle", "input_kib", "weight_kib",
              "accumulator_kib", "uop_kib", "axi_bits", "clock_mhz", "latency_hiding", "resources", "fits",
              "why_not_fits", "complete", "latency_ms", "host_ms", "on_front", "networks"}


@pytest.fixture(scope="module")
def exploration():
    return vdla.explore("resnet18", SPACE, image_size=SMALL)


def dominates(a, b):
    """a is at least as good as b on DSPs and latency, and better on one."""
    ad, bd = a["resources"]["dsp"], b["resources"]["dsp"]
    return ad <= bd and a["latency_ms"] <= b["latency_ms"] and (ad < bd or a["latency_ms"] < b["latency_ms"])


def test_document(exploration):
    x = exploration
    assert isinstance(x, vdla.Exploration)
    d = x.document
    assert {"base", "part", "clock_cap_mhz", "space", "networks", "points", "front", "refused", "marked",
            "stats"} <= set(d)
    assert d["base"] == "zcu104"
    assert x.part == d["part"] and x.part.startswith("xczu7ev")
    assert d["space"]["gemm"] == SPACE["gemm"] and d["space"]["latency_hiding"] == [True, False]
    assert [n["name"] for n in d["networks"]] == ["resnet18"]
    assert d["networks"][0]["conv_layers"] == 21 and d["networks"][0]["macs"] > 0
    assert d["stats"]["evaluated"] == len(x.points)
    assert "zcu104" in {m["name"] for m in x.marked}  # the part's shipped config, evaluated beside the sweep
    assert f"{len(x.points)} points" in repr(x)


def test_points_cover_the_space(exploration):
    x = exploration
    points = x.points
    print(f"explore: {len(points)} points, {len(x.front)} on the front, {len(x.refused)} refused configs")
    assert len(points) >= 4
    for p in points:
        assert POINT_KEYS <= set(p), POINT_KEYS - set(p)
        assert isinstance(p["on_front"], bool)
        assert p["macs_per_cycle"] == p["batch"] * p["block_in"] * p["block_out"]
        assert {"lut", "ff", "dsp", "bram36"} <= set(p["resources"])
        assert p["networks"][0]["network"] == "resnet18"
        assert p["latency_ms"] == pytest.approx(p["networks"][0]["latency_ms"])
    # Every config of the space is a pair of points (latency hiding on and off) or refused with a reason.
    configs = {(p["block_in"], p["block_out"], p["weight_kib"]) for p in points}
    assert len(points) == 2 * len(configs)
    assert len(configs) + len(x.refused) == 8
    assert configs <= set(itertools.product([16, 32], [16, 32], [256, 512]))
    assert all(r["reason"] for r in x.refused)
    # Latency hiding never makes a config slower, nor changes its resources.
    by_config = {}
    for p in points:
        by_config.setdefault((p["block_in"], p["block_out"], p["weight_kib"]), {})[p["latency_hiding"]] = p
    for pair in by_config.values():
        assert pair[True]["latency_ms"] <= pair[False]["latency_ms"]
        assert pair[True]["resources"] == pair[False]["resources"]


def test_front_is_the_pareto_front(exploration):
    x = exploration
    front = x.front
    assert len(front) >= 1
    assert [i for i, p in enumerate(x.points) if p["on_front"]] == sorted(x.document["front"])
    assert all(p["on_front"] for p in front)
    candidates = [p for p in x.points if p["fits"] and p["complete"]]
    assert all(p in candidates for p in front)
    # No candidate dominates a front point; every other candidate is dominated by a front point.
    for f in front:
        assert not any(dominates(c, f) for c in candidates), f["name"]
    for c in candidates:
        if not c["on_front"]:
            assert any(dominates(f, c) for f in front), c["name"]
    # The front is ordered by DSPs.
    dsps = [p["resources"]["dsp"] for p in front]
    assert dsps == sorted(dsps)


def test_csv(exploration):
    rows = list(csv.reader(io.StringIO(exploration.csv)))
    assert len(rows) == 1 + len(exploration.points)
    assert len({len(r) for r in rows}) == 1


def test_save_writes_three_files(exploration, tmp_path):
    out = tmp_path / "explore-out"
    exploration.save(out)
    assert sorted(p.name for p in out.iterdir()) == ["pareto.svg", "results.csv", "results.json"]
    assert json.loads((out / "results.json").read_text()) == exploration.document
    assert (out / "results.csv").read_text() == exploration.csv
    svg = (out / "pareto.svg").read_text()
    assert svg.lstrip().startswith(("<svg", "<?xml")) and svg == exploration._repr_svg_()


def test_threads_do_not_change_results(exploration):
    one = vdla.explore(["resnet18"], SPACE, image_size=SMALL, threads=1)
    assert one.points == exploration.points
    assert one.document["front"] == exploration.document["front"]


def test_cache_resumes(tmp_path, exploration):
    cache = tmp_path / "cache.jsonl"
    first = vdla.explore("resnet18", SPACE, image_size=SMALL, cache=str(cache))
    assert cache.is_file() and cache.stat().st_size > 0
    second = vdla.explore("resnet18", SPACE, image_size=SMALL, cache=str(cache))
    assert second.document["stats"]["cached"] == len(first.points)
    assert second.points == first.points == exploration.points


def test_base_as_config_and_marks(tmp_path):
    base = vdla.Config.load("ultra96").replace(name="my-ultra96")
    x = vdla.explore("resnet18", {"gemm": {"block_out": [16, 32]}}, base=base, image_size=SMALL, marks=["ultra96"],
                     cache=str(tmp_path / "cache.jsonl"))
    assert not (tmp_path / "my-ultra96.json").exists()  # written once per hash to the temporary directory
    assert x.document["base"] == "my-ultra96"
    assert [m["name"] for m in x.marked] == ["ultra96"]
    assert len(x.points) == 2 and {p["block_out"] for p in x.points} == {16, 32}
    assert all(p["latency_hiding"] for p in x.points)  # latency hiding defaults to on


def test_clock_cap():
    space = {"base": "zcu104", "clock_mhz": [150, 300]}
    x = vdla.explore("resnet18", space, image_size=SMALL, clock_cap_mhz=200)
    assert x.document["clock_cap_mhz"] == 200
    assert [p["clock_mhz"] for p in x.points] == [150]
    assert any("above the cap" in r["reason"] for r in x.refused)


def test_acc_dual_read_dimension():
    # ACC's second read port: the same design with and without it, its copy
    # of ACC in the block RAM, its tensor passes (max pooling) faster.
    x = vdla.explore("resnet18", {"base": "pynq", "acc_dual_read": [False, True]}, image_size=SMALL)
    assert x.document["space"]["acc_dual_read"] == [False, True]
    assert len(x.points) == 2
    without, with_copy = sorted(x.points, key=lambda p: p["name"].endswith("-dr"))
    assert with_copy["name"] == without["name"] + "-dr"
    assert with_copy["resources"]["bram36"] == without["resources"]["bram36"] + 32
    assert with_copy["resources"]["dsp"] == without["resources"]["dsp"]
    assert with_copy["latency_ms"] < without["latency_ms"]


def test_end_to_end_objective():
    # On ultra96's board 1x16x32 leaves every activation to the host
    # (host_ms): end to end it cannot be on the front, whatever its DSPs.
    space = {"base": "ultra96", "gemm": {"block_in": [16, 32], "block_out": [16, 32]}}
    acc = vdla.explore("resnet18", space, image_size=SMALL)
    e2e = vdla.explore("resnet18", space, image_size=SMALL, objective="end-to-end")
    assert acc.document["objective"] == "accelerator" and e2e.document["objective"] == "end-to-end"
    by_shape = {(p["block_in"], p["block_out"]): p for p in e2e.points}
    assert by_shape[(16, 32)]["host_ms"] > 20 * by_shape[(32, 16)]["host_ms"] > 0

    def e2e_dominates(a, b):
        ad, bd, at, bt = a["resources"]["dsp"], b["resources"]["dsp"], a["latency_ms"] + a["host_ms"], \
            b["latency_ms"] + b["host_ms"]
        return ad <= bd and at <= bt and (ad < bd or at < bt)

    ok = [p for p in e2e.points if p["fits"] and p["complete"]]
    for p in e2e.points:
        assert p["on_front"] == (p in ok and not any(e2e_dominates(q, p) for q in ok)), p["name"]
    with pytest.raises(vdla.Error, match="objective 'fastest'"):
        vdla.explore("resnet18", space, image_size=SMALL, objective="fastest")


def test_two_networks():
    x = vdla.explore(["resnet18", "cnn"], {"base": "zcu104"}, image_size=SMALL)
    (p,) = x.points
    assert [n["network"] for n in p["networks"]] == ["resnet18", "cnn"]
    # A point's latency is the networks' total.
    assert p["latency_ms"] == pytest.approx(sum(n["latency_ms"] for n in p["networks"]), rel=1e-9)
    assert all(n["latency_ms"] > 0 for n in p["networks"])


def test_errors(resnet18_llvm, tmp_path):
    with pytest.raises(ValueError, match="executor"):
        vdla.explore("resnet18", SPACE, image_size=SMALL, executor="spark")
    with pytest.raises(vdla.Error, match=r"'gemm\.blockin' is not a known field"):
        vdla.explore("resnet18", {"base": "zcu104", "gemm": {"blockin": [16]}}, image_size=SMALL)
    with pytest.raises(vdla.Error, match=r"'gemm\.block_in': must be a non-empty list"):
        vdla.explore("resnet18", {"base": "zcu104", "gemm": {"block_in": []}}, image_size=SMALL)
    with pytest.raises(vdla.Error, match="no valid point"):
        vdla.explore("resnet18", {"base": "zcu104", "gemm": {"block_in": [3]}}, image_size=SMALL)
    with pytest.raises(vdla.Error, match="no-such-base"):
        vdla.explore("resnet18", {"base": "no-such-base"}, image_size=SMALL)
    with pytest.raises(vdla.Error, match="resnet19"):
        vdla.explore("resnet19", SPACE)
    path = tmp_path / "a.vdla"
    resnet18_llvm.save(path)
    with pytest.raises(vdla.Error, match="not a compiled artifact"):
        vdla.explore(str(path), SPACE)
    with pytest.raises(vdla.Error, match="confirm"):
        vdla.explore("resnet18", SPACE, image_size=SMALL, confirm=-1)
    with pytest.raises(vdla.Error, match="yosys"):
        vdla.explore("resnet18", SPACE, image_size=SMALL, yosys=-1)


def test_progress_lines(capfd):
    vdla.explore("resnet18", {"base": "zcu104"}, image_size=SMALL, progress=True)
    assert "preparing resnet18" in capfd.readouterr().err
    vdla.explore("resnet18", {"base": "zcu104"}, image_size=SMALL)
    assert capfd.readouterr().err == ""
