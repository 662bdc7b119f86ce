"""vdla.Session, vdla.run and vdla.devices: NumPy in and out, every device, error paths."""

import gc

import numpy as np
import pytest

import vdla

from conftest import SMALL, random_input


@pytest.fixture(scope="module")
def llvm_session(resnet18_llvm):
    return vdla.Session(resnet18_llvm)


@pytest.fixture(scope="module")
def input_name(resnet18_llvm):
    return resnet18_llvm.inputs[0]["name"]


def test_devices():
    d = vdla.devices()
    assert isinstance(d, list)
    assert {"fsim", "cycle", "hls"} <= set(d)


def test_run_returns_owned_float_arrays(llvm_session, resnet18_input):
    outputs = llvm_session.run(resnet18_input)
    assert isinstance(outputs, list) and len(outputs) == 1
    out = outputs[0]
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float32 and out.shape == (1, 1000)
    assert out.flags.c_contiguous
    # The array keeps the native tensor alive through its base, not a view of an input.
    assert out.base is not None
    assert not np.shares_memory(out, resnet18_input)
    assert np.isfinite(out).all() and out.std() > 0


def test_outputs_outlive_the_session(resnet18_llvm, resnet18_input):
    session = vdla.Session(resnet18_llvm)
    out = session.run(resnet18_input)[0]
    copy = out.copy()
    second = session.run(resnet18_input)[0]
    assert not np.shares_memory(out, second)  # every run gives fresh memory
    del session, second
    gc.collect()
    np.testing.assert_array_equal(out, copy)
    out[0, 0] = 123.0  # writable, and only this array changes
    assert out[0, 0] == 123.0 and copy[0, 0] != 123.0


def test_repeated_runs_are_deterministic(llvm_session, resnet18_input):
    a = llvm_session.run(resnet18_input)[0]
    b = llvm_session(resnet18_input)[0]  # __call__
    np.testing.assert_array_equal(a, b)


def test_inputs_by_name(llvm_session, resnet18_input, input_name):
    a = llvm_session.run(resnet18_input)[0]
    b = llvm_session.run({input_name: resnet18_input})[0]
    np.testing.assert_array_equal(a, b)
    with pytest.raises(vdla.Error, match=f"missing \\['{input_name}'\\]"):
        llvm_session.run({"other": resnet18_input})
    with pytest.raises(vdla.Error, match="unknown \\['extra'\\]"):
        llvm_session.run({input_name: resnet18_input, "extra": resnet18_input})


def test_strided_input_equals_its_contiguous_copy(llvm_session, resnet18_input):
    # A transposed view (non-contiguous) holding the same values as resnet18_input.
    view = np.ascontiguousarray(resnet18_input.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    assert not view.flags.c_contiguous
    np.testing.assert_array_equal(view, resnet18_input)
    np.testing.assert_array_equal(llvm_session.run(view)[0], llvm_session.run(resnet18_input)[0])
    # Lists are converted (as float64, which is refused: the model takes float32).
    with pytest.raises(vdla.Error, match="float32"):
        llvm_session.run(resnet18_input.tolist())


def test_wrong_shape_names_the_input(llvm_session, input_name):
    with pytest.raises(vdla.Error) as e:
        llvm_session.run(random_input((1, 3, 32, 32)))
    msg = str(e.value)
    assert input_name in msg and "expects" in msg and "64" in msg


def test_wrong_dtype_names_the_input(llvm_session, resnet18_input, input_name):
    with pytest.raises(vdla.Error) as e:
        llvm_session.run(resnet18_input.astype(np.float64))
    assert input_name in str(e.value) and "not supported" in str(e.value)
    with pytest.raises(vdla.Error) as e:
        llvm_session.run(resnet18_input.astype(np.int32))
    assert input_name in str(e.value) and "expects" in str(e.value)


def test_wrong_number_of_inputs(llvm_session, resnet18_input):
    with pytest.raises(vdla.Error, match="takes 1 inputs, got 2"):
        llvm_session.run(resnet18_input, resnet18_input)
    with pytest.raises(vdla.Error, match="takes 1 inputs, got 0"):
        llvm_session.run()


def test_llvm_matches_ref(resnet18_llvm, resnet18_ref, resnet18_input):
    llvm = vdla.Session(resnet18_llvm).run(resnet18_input)[0]
    ref = vdla.Session(resnet18_ref).run(resnet18_input)[0]
    scale = np.abs(ref).max()
    np.testing.assert_allclose(llvm, ref, rtol=1e-4, atol=1e-4 * scale)
    assert np.argmax(llvm) == np.argmax(ref)


def test_llvm_matches_ref_on_mobilenet(mobilenet, mobilenet_llvm, photos):
    x = vdla.image_input(photos[0])
    ref = vdla.run(mobilenet, x, target="ref", strip_qdq=True)[0]
    llvm = vdla.Session(mobilenet_llvm).run(x)[0]
    np.testing.assert_allclose(llvm, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    assert np.argmax(llvm) == np.argmax(ref)


def test_llvm_needs_strip_qdq_for_int8_models(mobilenet):
    # The QDQ pairs fuse into QLinearConv, which only targets ref and vdla run.
    with pytest.raises(vdla.Error, match="QLinearConv"):
        vdla.compile(mobilenet, target="llvm")


def test_accelerator_matches_host_within_quantisation(resnet18_vdla_pynq, resnet18_llvm, resnet18_input):
    accel = vdla.Session(resnet18_vdla_pynq, device="fsim").run(resnet18_input)[0]
    host = vdla.Session(resnet18_llvm).run(resnet18_input)[0]
    corr = np.corrcoef(accel.ravel(), host.ravel())[0, 1]
    print(f"resnet18@{SMALL} int8 on fsim vs fp32 llvm: correlation {corr:.4f}")
    assert corr > 0.9


@pytest.mark.parametrize("config", ["tiny", "pynq"])
def test_fsim_hls_and_cycle_are_bit_identical(config, resnet18):
    artifact = vdla.compile(resnet18, target="vdla", config=config)
    x = random_input((1, 3, SMALL, SMALL), seed=7)
    fsim = vdla.Session(artifact, device="fsim").run(x)[0]
    hls = vdla.Session(artifact, device="hls").run(x)[0]
    cycle = vdla.Session(artifact, device="cycle").run(x)[0]
    assert fsim.dtype == np.float32 and fsim.shape == (1, 1000)
    np.testing.assert_array_equal(fsim, hls)
    np.testing.assert_array_equal(fsim, cycle)


def test_device_errors(resnet18_llvm, resnet18_vdla_pynq):
    with pytest.raises(vdla.Error, match="runs on the host"):
        vdla.Session(resnet18_llvm, device="cycle")
    with pytest.raises(vdla.Error, match="warp-drive"):
        vdla.Session(resnet18_vdla_pynq, device="warp-drive")
    with pytest.raises(vdla.Error, match="no-such-config"):
        vdla.Session(resnet18_vdla_pynq, config="no-such-config")


def test_session_from_files(resnet18_vdla_pynq, resnet18_input, tmp_path):
    path = tmp_path / "r.vdla"
    resnet18_vdla_pynq.save(path)
    s = vdla.Session(str(path), device="fsim")
    assert s.device == "fsim" and isinstance(s.artifact, vdla.Artifact)
    np.testing.assert_array_equal(s.run(resnet18_input)[0],
                                  vdla.Session(resnet18_vdla_pynq).run(resnet18_input)[0])
    assert "fsim" in repr(s)
    with pytest.raises(vdla.Error, match="compile the model first"):
        vdla.Session("resnet18")


def test_artifact_session_method(resnet18_vdla_pynq, resnet18_input):
    s = resnet18_vdla_pynq.session(device="hls")
    assert isinstance(s, vdla.Session) and s.device == "hls"
    np.testing.assert_array_equal(s.run(resnet18_input)[0],
                                  vdla.Session(resnet18_vdla_pynq).run(resnet18_input)[0])


def test_profiled_runs(resnet18_vdla_pynq, resnet18_input):
    s = vdla.Session(resnet18_vdla_pynq, device="cycle", profile=True)
    s.run(resnet18_input)
    steps = s.profile()
    assert len(steps) == len(resnet18_vdla_pynq.steps)
    assert [p["name"] for p in steps] == [p["name"] for p in resnet18_vdla_pynq.steps]
    on_device = [p for p in steps if p["on_device"]]
    assert len(on_device) == resnet18_vdla_pynq.report["accelerator_steps"]
    for p in on_device:
        assert p["cycles"] > 0 and 0 < p["gemm_cycles"] <= p["cycles"]
        assert p["device_seconds"] >= 0
    assert all(p["seconds"] >= 0 for p in steps)
    # Measured cycles against the compiler's estimates: the cost model is within a few percent.
    estimated = sum(l["estimated_cycles"] for l in resnet18_vdla_pynq.report["layers"] if l["offloaded"])
    measured = sum(p["cycles"] for p in on_device)
    assert abs(estimated / measured - 1) < 0.1


def test_run_function(resnet18, resnet18_llvm, resnet18_ref, resnet18_vdla_pynq, resnet18_input, tmp_path):
    np.testing.assert_array_equal(vdla.run(resnet18_llvm, resnet18_input)[0],
                                  vdla.Session(resnet18_llvm).run(resnet18_input)[0])
    np.testing.assert_array_equal(vdla.run(resnet18, resnet18_input, target="ref")[0],
                                  vdla.Session(resnet18_ref).run(resnet18_input)[0])
    np.testing.assert_array_equal(vdla.run(resnet18, resnet18_input, target="vdla", device="hls", config="pynq")[0],
                                  vdla.Session(resnet18_vdla_pynq).run(resnet18_input)[0])
    path = tmp_path / "r.vdla"
    resnet18_llvm.save(path)
    np.testing.assert_array_equal(vdla.run(str(path), resnet18_input)[0],
                                  vdla.Session(resnet18_llvm).run(resnet18_input)[0])
