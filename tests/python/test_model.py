"""vdla.load, vdla.Model, vdla.compile, vdla.Artifact, vdla.load_artifact, vdla.targets."""

import json
import pickle

import numpy as np
import pytest

import vdla
from vdla import _core

from conftest import PHOTOS_DIR, SMALL, random_input


def run_once(artifact, x, **kw):
    return vdla.Session(artifact, **kw).run(x)


# ---------------------------------------------------------------- targets


def test_targets():
    t = vdla.targets()
    assert set(t) == {"ref", "llvm", "vdla", "cuda"}
    assert all(isinstance(v, bool) for v in t.values())
    assert t["ref"] and t["llvm"] and t["vdla"]
    assert vdla.target_stages("vdla") == [
        "qlinear-to-qconv",
        "quantize",
        "fold-reshapes",
        "accel-fuse-additions",
        "accel-fuse-expansions",
        "accel-partition",
        "accel-arena",
        "accel-codegen",
        "accel-token-check",
        "cpu-fallback",
    ]
    assert vdla.target_stages("cuda") == ["ref-lower", "cuda-lower"]


# ---------------------------------------------------------------- models


def test_zoo_model(resnet18):
    assert isinstance(resnet18, vdla.Model)
    assert resnet18.spec == "resnet18"
    assert resnet18.kind == "zoo model"
    assert len(resnet18.inputs) == 1
    inp = resnet18.inputs[0]
    assert inp["dtype"] == "float32" and inp["shape"] == [1, 3, SMALL, SMALL] and inp["name"]
    assert [o["shape"] for o in resnet18.outputs] == [[1, 1000]]
    assert "resnet18" in repr(resnet18)


def test_zoo_options():
    m = vdla.load("resnet18", batch=2, image_size=32, seed=3)
    assert m.inputs[0]["shape"] == [2, 3, 32, 32]
    assert m.outputs[0]["shape"] == [2, 1000]
    with pytest.raises(vdla.Error, match="image_size must be at least 32"):
        vdla.load("resnet18", image_size=16)
    with pytest.raises(vdla.Error, match="batch must be at least 1"):
        vdla.load("resnet18", batch=0)


def test_seed_changes_the_weights():
    x = random_input((1, 3, 32, 32))
    a = vdla.run(vdla.load("cnn", image_size=32, seed=1), x, target="llvm")[0]
    b = vdla.run(vdla.load("cnn", image_size=32, seed=1), x, target="llvm")[0]
    c = vdla.run(vdla.load("cnn", image_size=32, seed=2), x, target="llvm")[0]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_summary_and_ir(resnet18):
    s = resnet18.summary()
    assert s["nodes"] > 20
    assert s["operators"].get("Conv", 0) == 20  # 17 3x3 + 3 downsampling 1x1 convolutions
    assert sum(s["operators"].values()) == s["nodes"]
    # ResNet-18's parameters: about 11.7 M fp32 numbers.
    assert 11e6 * 4 < s["constant_bytes"] < 13e6 * 4
    text = resnet18.ir()
    assert isinstance(text, str) and "Conv" in text and text.count("\n") >= s["nodes"]


def test_onnx_model(mobilenet, mobilenet_path):
    assert mobilenet.kind == "ONNX model"
    assert mobilenet.spec == str(mobilenet_path)
    assert len(mobilenet.inputs) == 1
    assert mobilenet.inputs[0]["shape"] == [1, 3, 224, 224]
    assert mobilenet.inputs[0]["dtype"] == "float32"
    assert mobilenet.outputs[0]["shape"] == [1, 1000]
    ops = mobilenet.summary()["operators"]
    assert ops.get("QuantizeLinear", 0) > 0 and ops.get("DequantizeLinear", 0) > 0


def test_load_passes_models_and_artifacts_through(resnet18, resnet18_llvm):
    assert vdla.load(resnet18) is resnet18
    assert vdla.load(resnet18_llvm) is resnet18_llvm


def test_unknown_zoo_name():
    with pytest.raises(vdla.Error) as e:
        vdla.load("resnet19")
    assert "resnet19" in str(e.value) and "resnet18" in str(e.value)


def test_missing_file(tmp_path):
    path = tmp_path / "missing.onnx"
    with pytest.raises(vdla.Error, match="missing.onnx"):
        vdla.load(path)


def test_directory_is_not_a_model(tmp_path):
    with pytest.raises(vdla.Error, match="not a regular file"):
        vdla.load(tmp_path)


def test_corrupt_onnx_file(tmp_path):
    path = tmp_path / "junk.onnx"
    path.write_bytes(b"this is not a protobuf" * 10)
    with pytest.raises(vdla.Error, match="junk.onnx"):
        vdla.load(path)


def test_zoo_options_do_not_apply_to_onnx(mobilenet_path):
    with pytest.raises(vdla.Error, match="zoo models"):
        vdla.load(mobilenet_path, image_size=64)


# ---------------------------------------------------------------- compile and artifacts


def test_artifact_properties(resnet18_llvm):
    a = resnet18_llvm
    assert isinstance(a, vdla.Artifact)
    assert a.target == "llvm"
    assert a.config_name == "pynq"
    assert a.saveable
    info = a.info()
    assert {"target", "config", "inputs", "outputs", "steps", "parameters", "parameter_bytes", "blobs",
            "metadata"} <= set(info)
    assert info["metadata"]["source"] == "resnet18"
    assert info["metadata"]["source_kind"] == "zoo model"
    assert a.inputs[0]["shape"] == [1, 3, SMALL, SMALL] and a.inputs[0]["dtype"] == "float32"
    assert a.outputs[0]["shape"] == [1, 1000]
    assert len(a.steps) > 0 and all({"name", "kernel"} <= set(s) for s in a.steps)
    assert info["parameters"] > 11e6
    passes = a.report["passes"]
    assert len(passes) > 0 and all("name" in p for p in passes)
    assert "layers" not in a.report  # placement is reported for target vdla only
    assert "llvm" in repr(a)


def test_vdla_artifact_report(resnet18_vdla_pynq):
    a = resnet18_vdla_pynq
    assert a.target == "vdla" and a.config_name == "pynq"
    r = a.report
    offloaded = [l for l in r["layers"] if l["offloaded"]]
    assert r["accelerator_steps"] == len(offloaded) > 0
    # Every ResNet-18 convolution, the classifier and both poolings go to the accelerator on pynq.
    assert len(offloaded) == 23
    assert all(l["estimated_cycles"] > 0 for l in offloaded)
    assert [l["name"] for l in offloaded if l["macs"] == 0] == ["maxpool.i8", "avgpool.qlinear"]
    assert all("why_on_cpu" in s for s in r["cpu_steps"])
    assert len(r["cpu_steps"]) == len(r["layers"]) - len(offloaded)
    # The target's stages follow the graph passes in the report, named with the target.
    stages = [p["name"] for p in r["passes"] if p["target"] == "vdla"]
    assert stages == vdla.target_stages("vdla"), stages
    assert r["passes"][0]["target"] is None


def test_compile_with_a_config_object(resnet18):
    cfg = vdla.Config.load("pynq").replace(name="pynq-copy", gemm__block_out=32, extensions__depthwise_taps=0,
                                           extensions__inp_writeback=False)
    a = vdla.compile(resnet18, target="vdla", config=cfg)
    assert a.config_name == "pynq-copy"
    assert a.config_hash == cfg.hash != vdla.Config.load("pynq").hash
    # The device needs the config: it is no shipped one.
    with pytest.raises(vdla.Error, match="pynq-copy"):
        vdla.Session(a, device="fsim")
    out = vdla.Session(a, device="fsim", config=cfg).run(random_input((1, 3, SMALL, SMALL)))[0]
    assert out.shape == (1, 1000) and np.isfinite(out).all()


def test_model_compile_method_equals_compile(resnet18, resnet18_llvm, resnet18_input):
    a = resnet18.compile("llvm")
    assert a.target == "llvm"
    np.testing.assert_array_equal(run_once(a, resnet18_input)[0], run_once(resnet18_llvm, resnet18_input)[0])


def test_compile_from_a_zoo_name():
    a = vdla.compile("cnn", target="ref")
    assert a.target == "ref" and a.info()["metadata"]["source"] == "cnn"


def test_unknown_target(resnet18):
    with pytest.raises(vdla.Error, match="unknown target 'tpu'"):
        vdla.compile(resnet18, target="tpu")


def test_cuda_target_matches_availability(resnet18):
    if vdla.targets()["cuda"]:
        assert vdla.compile(resnet18, target="cuda").target == "cuda"
    else:
        with pytest.raises(vdla.Error, match="cuda"):
            vdla.compile(resnet18, target="cuda")


def test_unknown_compile_option(resnet18):
    with pytest.raises(TypeError, match="bogus_option"):
        vdla.compile(resnet18, target="llvm", bogus_option=1)
    with pytest.raises(TypeError, match="bogus_option"):
        vdla.run(resnet18, random_input((1, 3, SMALL, SMALL)), bogus_option=1)


def test_native_compile_rejects_unknown_and_mistyped_options(resnet18):
    # The native module checks every key the Python layer passes.
    with pytest.raises(vdla.Error, match="unknown option 'bogus'"):
        _core.compile(resnet18._handle, json.dumps({"target": "ref", "bogus": 1}), [], "", 8)
    with pytest.raises(vdla.Error, match="option 'latency_hiding' has the wrong type"):
        _core.compile(resnet18._handle, json.dumps({"target": "ref", "latency_hiding": "yes"}), [], "", 8)


def test_bad_option_values(resnet18):
    with pytest.raises(vdla.Error, match="cpu_kernels"):
        vdla.compile(resnet18, target="vdla", cpu_kernels="fast")
    with pytest.raises(vdla.Error, match="library"):
        vdla.compile(resnet18, target="llvm", library="riscv")
    with pytest.raises(vdla.Error, match="no-such-config"):
        vdla.compile(resnet18, target="vdla", config="no-such-config")
    with pytest.raises(vdla.Error, match=r"'gemm\.block_in'"):
        vdla.compile(resnet18, target="vdla", config=dict(vdla.Config.load("pynq").to_dict(), gemm={
            "batch": 1, "block_in": 5, "block_out": 16}))


def test_artifact_where_a_model_is_needed(resnet18_llvm, tmp_path):
    with pytest.raises(vdla.Error, match="needs a model"):
        vdla.compile(resnet18_llvm, target="llvm")
    path = tmp_path / "r.vdla"
    resnet18_llvm.save(path)
    with pytest.raises(vdla.Error, match="needs a model"):
        vdla.compile(str(path), target="llvm")
    with pytest.raises(vdla.Error, match="needs a model"):
        vdla.profile(str(path))
    with pytest.raises(vdla.Error, match="artifact"):
        _core.load_model(str(path), "{}")


def test_save_and_load_round_trip(resnet18_llvm, resnet18_input, tmp_path):
    path = tmp_path / "resnet18.vdla"
    resnet18_llvm.save(path)
    assert path.stat().st_size > 11e6 * 4  # the weights are in the file
    assert _core.model_kind(str(path)) == "artifact"
    loaded = vdla.load_artifact(path)
    also = vdla.load(str(path))
    assert isinstance(loaded, vdla.Artifact) and isinstance(also, vdla.Artifact)
    assert loaded.info() == resnet18_llvm.info() == also.info()
    expected = run_once(resnet18_llvm, resnet18_input)[0]
    np.testing.assert_array_equal(run_once(loaded, resnet18_input)[0], expected)
    np.testing.assert_array_equal(run_once(also, resnet18_input)[0], expected)
    with pytest.raises(vdla.Error, match="zoo models, not artifacts"):
        vdla.load(path, image_size=64)


def test_load_artifact_errors(tmp_path, mobilenet_path):
    with pytest.raises(vdla.Error, match="gone.vdla"):
        vdla.load_artifact(tmp_path / "gone.vdla")
    with pytest.raises(vdla.Error):
        vdla.load_artifact(mobilenet_path)  # an ONNX file is no artifact
    with pytest.raises(vdla.Error):
        vdla.Artifact.from_bytes(b"VDLA-not-really-an-artifact")


def test_pickle_and_bytes_round_trip(resnet18_vdla_pynq, resnet18_input):
    a = resnet18_vdla_pynq
    expected = run_once(a, resnet18_input)[0]
    again = pickle.loads(pickle.dumps(a))
    assert isinstance(again, vdla.Artifact) and again.info() == a.info()
    np.testing.assert_array_equal(run_once(again, resnet18_input)[0], expected)
    data = a.to_bytes()
    assert isinstance(data, bytes) and len(data) > 1e6
    np.testing.assert_array_equal(run_once(vdla.Artifact.from_bytes(data), resnet18_input)[0], expected)


def test_jit_artifact_runs_but_cannot_be_saved(resnet18, resnet18_llvm, resnet18_input, tmp_path):
    jit = vdla.compile(resnet18, target="llvm", library=None)
    assert not jit.saveable
    np.testing.assert_allclose(run_once(jit, resnet18_input)[0], run_once(resnet18_llvm, resnet18_input)[0],
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(vdla.Error, match="library='host'"):
        jit.save(tmp_path / "jit.vdla")
    assert not (tmp_path / "jit.vdla").exists()
    with pytest.raises(vdla.Error, match="library='host'"):
        jit.to_bytes()
    with pytest.raises(vdla.Error):
        pickle.dumps(jit)


def test_latency_hiding_does_not_change_outputs(resnet18, resnet18_vdla_pynq, resnet18_input):
    off = vdla.compile(resnet18, target="vdla", config="pynq", latency_hiding=False)
    np.testing.assert_array_equal(run_once(off, resnet18_input)[0], run_once(resnet18_vdla_pynq, resnet18_input)[0])


def test_vdla_compile_options(resnet18, resnet18_vdla_pynq, resnet18_input):
    expected = run_once(resnet18_vdla_pynq, resnet18_input)[0]
    ref_cpu = vdla.compile(resnet18, target="vdla", config="pynq", cpu_kernels="ref")
    np.testing.assert_allclose(run_once(ref_cpu, resnet18_input)[0], expected, rtol=1e-3, atol=1e-3)
    no_im2col = vdla.compile(resnet18, target="vdla", config="pynq", allow_im2col=False)
    assert no_im2col.report["accelerator_steps"] <= resnet18_vdla_pynq.report["accelerator_steps"]
    out = run_once(no_im2col, resnet18_input)[0]
    assert out.shape == (1, 1000) and np.isfinite(out).all()
    # The poolings on the CPU instead: two accelerator steps fewer, the same logits bit for bit.
    cpu_pool = vdla.compile(resnet18, target="vdla", config="pynq", offload_pooling=False)
    assert cpu_pool.report["accelerator_steps"] == resnet18_vdla_pynq.report["accelerator_steps"] - 2
    np.testing.assert_array_equal(run_once(cpu_pool, resnet18_input)[0], expected)


def test_column_unfold_option(resnet18, resnet18_input):
    # On ultra96's 32-lane entries the stem takes its columns unfolded by two;
    # allow_unfold=False keeps its space-to-depth form. Both are exact: the same logits.
    on = vdla.compile(resnet18, target="vdla", config="ultra96")
    off = vdla.compile(resnet18, target="vdla", config="ultra96", allow_unfold=False)

    def stem(artifact):
        return next(l for l in artifact.report["layers"] if l["name"] == "conv1.qconv")

    assert stem(on)["space_to_depth"] and stem(on)["unfold_columns"] == 2
    assert stem(off)["space_to_depth"] and stem(off)["unfold_columns"] == 1
    assert stem(on)["estimated_gemm_cycles"] == pytest.approx(stem(off)["estimated_gemm_cycles"] / 2, rel=0.01)
    np.testing.assert_array_equal(run_once(on, resnet18_input)[0], run_once(off, resnet18_input)[0])


def test_unoptimised_compile_matches(resnet18, resnet18_ref, resnet18_input):
    plain = vdla.compile(resnet18, target="ref", optimize=False)
    assert len(plain.steps) >= len(resnet18_ref.steps)
    np.testing.assert_allclose(run_once(plain, resnet18_input)[0], run_once(resnet18_ref, resnet18_input)[0],
                               rtol=1e-4, atol=1e-4)


def test_calibration(resnet18, resnet18_vdla_pynq, resnet18_input):
    expected = run_once(resnet18_vdla_pynq, resnet18_input)[0]
    from_photos = vdla.compile(resnet18, target="vdla", config="pynq", calibration=PHOTOS_DIR, calibration_count=2)
    samples = [random_input((1, 3, SMALL, SMALL), seed=s) for s in range(3)]
    from_arrays = vdla.compile(resnet18, target="vdla", config="pynq", calibration=samples)
    from_lists = vdla.compile(resnet18, target="vdla", config="pynq", calibration=[[s] for s in samples])
    a = run_once(from_photos, resnet18_input)[0]
    b = run_once(from_arrays, resnet18_input)[0]
    c = run_once(from_lists, resnet18_input)[0]
    np.testing.assert_array_equal(b, c)  # the two forms of the same samples
    # Other data give other quantisation scales, so other int8 results.
    assert not np.array_equal(a, expected) and not np.array_equal(b, expected)
    with pytest.raises(vdla.Error, match="calibration sample 0"):
        vdla.compile(resnet18, target="vdla", config="pynq", calibration=[np.zeros((1, 3, 64, 64))])
    with pytest.raises(vdla.Error):
        vdla.compile(resnet18, target="vdla", config="pynq", calibration=PHOTOS_DIR.parent / "nothing-here")


# ---------------------------------------------------------------- signed artifacts


def test_signed_artifacts(resnet18_llvm, resnet18_input, tmp_path):
    """With trusted keys, only artifacts one of them signed load; a changed byte or another key is refused."""
    public = vdla.keygen(tmp_path / "build")
    vdla.keygen(tmp_path / "stranger")
    assert len(public) == 64 and (tmp_path / "build.pub").read_text().split()[1] == public
    trusted = tmp_path / "trusted"
    trusted.mkdir()
    (trusted / "build.pub").write_text((tmp_path / "build.pub").read_text())
    resnet18_llvm.save(tmp_path / "signed.vdla", sign=tmp_path / "build.key")
    resnet18_llvm.save(tmp_path / "stranger.vdla", sign=tmp_path / "stranger.key")
    resnet18_llvm.save(tmp_path / "plain.vdla")
    tampered = bytearray((tmp_path / "signed.vdla").read_bytes())
    tampered[300] ^= 1
    (tmp_path / "tampered.vdla").write_bytes(bytes(tampered))
    want = vdla.Session(resnet18_llvm).run(resnet18_input)[0]
    try:
        vdla.trust_keys(trusted)
        got = vdla.Session(vdla.load(tmp_path / "signed.vdla")).run(resnet18_input)[0]
        np.testing.assert_array_equal(got, want)
        with pytest.raises(vdla.Error, match="unsigned artifact; refusing it"):
            vdla.load(tmp_path / "plain.vdla")
        with pytest.raises(vdla.Error, match="which is not trusted"):
            vdla.load(tmp_path / "stranger.vdla")
        with pytest.raises(vdla.Error, match="does not match the contents"):
            vdla.load(tmp_path / "tampered.vdla")
        with pytest.raises(vdla.Error, match="no trusted keys"):
            vdla.trust_keys(_empty_dir(tmp_path))
    finally:
        vdla.trust_keys(None)
    # Trusting nothing again: every artifact loads (a signed one like any other).
    assert vdla.load(tmp_path / "plain.vdla").target == "llvm"
    assert vdla.load(tmp_path / "stranger.vdla").target == "llvm"


def _empty_dir(tmp_path):
    d = tmp_path / "empty"
    d.mkdir(exist_ok=True)
    return d


def test_fuse_expansions_option():
    # pynq has STORE INP: MobileNetV2's expansions join their depthwise layers
    # (one accelerator step fewer per pair), with the same logits bit for bit.
    model = vdla.load("mobilenetv2", image_size=64)
    x = random_input((1, 3, 64, 64), seed=3)
    fused = vdla.compile(model, target="vdla", config="pynq")
    apart = vdla.compile(model, target="vdla", config="pynq", fuse_expansions=False)
    assert fused.report["accelerator_steps"] < apart.report["accelerator_steps"]
    np.testing.assert_array_equal(run_once(fused, x)[0], run_once(apart, x)[0])
