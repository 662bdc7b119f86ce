"""vdla.profile and vdla.Profile: per-layer cycles with latency hiding on and off."""

import numpy as np
import pytest

import vdla

from conftest import SMALL, random_input

REPORT_KEYS = {"model", "device", "config", "clock_mhz", "modes", "layers", "total_latency_hiding_on",
               "total_latency_hiding_off", "speedup_from_latency_hiding", "outputs_identical_across_modes"}


@pytest.fixture(scope="module")
def x():
    return random_input((1, 3, SMALL, SMALL), seed=5)


@pytest.fixture(scope="module")
def fsim_profile(resnet18, x):
    return vdla.profile(resnet18, config="pynq", device="fsim", input=x)


def test_report(fsim_profile):
    p = fsim_profile
    assert isinstance(p, vdla.Profile)
    r = p.report
    assert REPORT_KEYS <= set(r), REPORT_KEYS - set(r)
    assert r["device"] == "fsim" and r["config"] == "pynq" and r["model"] == "resnet18"
    assert r["clock_mhz"] == 150
    assert r["modes"] == ["on", "off"]
    assert r["outputs_identical_across_modes"] is True
    assert p.to_dict() is r
    assert "resnet18" in repr(p) and "23 layers" in repr(p)


def test_latency_hiding_speeds_up(fsim_profile):
    p = fsim_profile
    assert p.speedup_from_latency_hiding == p.report["speedup_from_latency_hiding"]
    assert p.speedup_from_latency_hiding > 1
    totals = p.totals
    assert set(totals) == {"on", "off"}
    assert totals["off"]["cycles"] / totals["on"]["cycles"] == pytest.approx(p.speedup_from_latency_hiding)
    # Neither mode beats the ideal (MACs / MACs per cycle).
    for mode in ("on", "off"):
        assert totals[mode]["cycles"] >= totals[mode]["ideal_cycles"] > 0
        assert 0 < totals[mode]["gemm_utilisation"] <= 1


def test_host_work(fsim_profile):
    """The host's share: inputs from CPU steps go up, outputs CPU steps read come down, the rest stays on the device."""
    work = fsim_profile.host_work
    assert set(work) == {"on", "off"}
    w = work["on"]
    assert w["offloaded_steps"] == 23
    assert w["input_bytes"] == 3 * SMALL * SMALL * 4 and w["output_bytes"] == 1000 * 4
    # Downloads: only the classifier's output (the pooled vector goes to the
    # classifier on the device: its Flatten and Reshape back cancel; the
    # stem's output goes to the max pooling on the device).
    classifier = 1008  # 1000 channels in blocks of 16
    assert w["downloaded_bytes"] == classifier
    assert w["transformed_bytes"] > 0  # the stem's space-to-depth
    assert not any("pool" in c["name"] for c in w["cpu_steps"]), [c["name"] for c in w["cpu_steps"]]
    assert w["accelerator_cycles"] == 0  # fsim has no clock
    assert w["board"] is None  # so no board estimate either
    assert "host work per inference" in fsim_profile.table


def test_layers(fsim_profile):
    p = fsim_profile
    layers = p.report["layers"]
    assert len(layers) == 23  # every ResNet-18 convolution, the classifier and both poolings
    macs_per_cycle = vdla.Config.load("pynq").macs_per_cycle
    for layer in layers:
        assert layer["ideal_cycles"] == pytest.approx(layer["macs"] / macs_per_cycle)
        for mode in ("on", "off"):
            m = layer["latency_hiding_" + mode]
            assert m["cycles"] >= layer["ideal_cycles"]
            assert m["measured"] is False  # fsim has no clock: cost-model estimates
    # The per-mode totals add up the layers.
    for mode in ("on", "off"):
        assert sum(l["latency_hiding_" + mode]["cycles"] for l in layers) == pytest.approx(
            p.totals[mode]["cycles"])
    # Flat rows for pandas: one per (layer, mode).
    rows = p.layers
    assert len(rows) == 2 * len(layers)
    assert [r["latency_hiding"] for r in rows[:2]] == ["on", "off"]
    assert rows[0]["name"] == layers[0]["name"] == rows[1]["name"]
    assert rows[0]["cycles"] == layers[0]["latency_hiding_on"]["cycles"]
    assert rows[1]["cycles"] == layers[0]["latency_hiding_off"]["cycles"]
    assert not any(k.startswith("latency_hiding_") for r in rows for k in r)


def test_chart_and_table(fsim_profile, tmp_path):
    svg = fsim_profile._repr_svg_()
    assert svg.lstrip().startswith(("<svg", "<?xml"))
    assert svg.rstrip().endswith("</svg>")
    assert fsim_profile.chart._repr_svg_() == svg
    fsim_profile.chart.save(tmp_path / "profile.svg")
    assert (tmp_path / "profile.svg").read_text() == svg
    assert "SvgChart" in repr(fsim_profile.chart)
    table = str(fsim_profile)
    assert "speed-up from latency hiding" in table and "total, latency hiding on" in table


def test_outputs_equal_a_compiled_run(fsim_profile, resnet18_vdla_pynq, x):
    # The profile's outputs (latency hiding on) are the network's outputs on the accelerator.
    assert len(fsim_profile.outputs) == 1
    expected = vdla.Session(resnet18_vdla_pynq, device="fsim").run(x)[0]
    np.testing.assert_array_equal(fsim_profile.outputs[0], expected)


def test_default_input_is_the_seeded_input(resnet18, resnet18_vdla_pynq):
    p = vdla.profile(resnet18, config="pynq", latency_hiding=[True])
    expected = vdla.Session(resnet18_vdla_pynq).run(vdla.seeded_input([1, 3, SMALL, SMALL]))[0]
    np.testing.assert_array_equal(p.outputs[0], expected)


def test_single_mode(resnet18, x, capfd):
    p = vdla.profile(resnet18, config="pynq", latency_hiding=[False], input=x, progress=True)
    assert "with latency hiding off on fsim" in capfd.readouterr().err
    assert p.report["modes"] == ["off"]
    assert p.speedup_from_latency_hiding is None
    assert set(p.totals) == {"off"}
    assert len(p.layers) == len(p.report["layers"])


def test_cycle_device_measures(resnet18, x, fsim_profile):
    p = vdla.profile(resnet18, config="pynq", device="cycle", input=x)
    r = p.report
    assert r["outputs_identical_across_modes"] is True
    assert p.speedup_from_latency_hiding > 1
    assert all(l["latency_hiding_on"]["measured"] for l in r["layers"])
    # Each layer's bytes and busy modules (its share of a chain): the
    # busiest module bounds it; every layer moves bytes; over the network no
    # module is busy for longer than the run.
    for mode in ("on", "off"):
        for l in r["layers"]:
            m = l["latency_hiding_" + mode]
            busy = {k: m[k + "_busy_cycles"] for k in ("load", "compute", "store")}
            assert m["bound"] == max(busy, key=busy.get), (l["name"], mode, m)
            assert m["dram_bytes_read"] > 0 and m["dram_bytes_written"] > 0, l["name"]
        for k in ("load", "compute", "store"):
            assert sum(l["latency_hiding_" + mode][k + "_busy_cycles"] for l in r["layers"]) <= p.totals[mode]["cycles"]
    assert sum(1 for l in r["layers"] if l["latency_hiding_on"]["bound"] == "compute") > 10  # ResNet-18 is GEMM-bound
    assert " bound " in p.table
    # The cost model (fsim's numbers) against the RTL's cycles: within 10 %.
    for mode in ("on", "off"):
        assert abs(p.totals[mode]["cost_model_error"]) < 0.1
        assert p.totals[mode]["estimated_cycles"] == pytest.approx(fsim_profile.totals[mode]["cycles"])
    np.testing.assert_array_equal(p.outputs[0], fsim_profile.outputs[0])
    # The board end-to-end estimate: the Pynq's Cortex-A9 at its measured rates.
    w = p.host_work["on"]
    b = w["board"]
    assert b["board"] == "pynq-z1" and b["core"] == "Cortex-A9" and b["clock_mhz"] == 650
    assert b["accelerator_seconds"] == pytest.approx(w["accelerator_cycles"] / 150e6)
    assert b["pack_instructions"] > 0 and b["cpu_step_instructions"] > 0 and b["runtime_instructions"] > 0
    assert b["end_to_end_seconds"] == pytest.approx(b["host_seconds"] + b["accelerator_seconds"])
    assert b["host_share"] == pytest.approx(b["host_seconds"] / b["end_to_end_seconds"])
    assert "board estimate (pynq-z1, Cortex-A9 at 650 MHz" in p.table


def test_profile_with_a_config_object(resnet18, x):
    cfg = vdla.Config.load("pynq").replace(name="pynq32", gemm__block_out=32, extensions__depthwise_taps=0,
                                           extensions__inp_writeback=False)
    p = vdla.profile(resnet18, config=cfg, input=x, latency_hiding=[True])
    assert p.report["config"] == "pynq32"
    for layer in p.report["layers"]:
        assert layer["ideal_cycles"] == pytest.approx(layer["macs"] / 512)


def test_bad_arguments(resnet18, resnet18_vdla_pynq):
    with pytest.raises(vdla.Error, match="latency hiding takes"):
        vdla.profile(resnet18, latency_hiding=[True, True])
    with pytest.raises(vdla.Error, match="latency hiding takes"):
        vdla.profile(resnet18, latency_hiding=[])
    with pytest.raises(vdla.Error, match="the input is"):
        vdla.profile(resnet18, input=random_input((1, 3, 32, 32)))
    with pytest.raises(vdla.Error, match="needs a model"):
        vdla.profile(resnet18_vdla_pynq)
    with pytest.raises(vdla.Error, match="calibration"):
        vdla.profile(resnet18, calibration=[random_input((1, 3, SMALL, SMALL))])
    with pytest.raises(vdla.Error, match="warp-drive"):
        vdla.profile(resnet18, device="warp-drive")
    with pytest.raises(vdla.Error, match="no-such-config"):
        vdla.profile(resnet18, config="no-such-config")
