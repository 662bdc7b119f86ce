#!/usr/bin/env bash
# End-to-end tests of the model commands: vdla compile, run and inspect.
#
#   bash cli_model_test.sh VDLA TMPDIR CASE [ARGS...]
#
# The cases below are added to cli_test.sh's helpers and dispatcher (must,
# match, json, expect, ...), which this script sources. Cases that need the
# shared data folder next to the repository (real photographs, class names)
# exit 77 (skipped) when it is absent.

SHARED_DATA=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/shared/data

skip() {
  echo "SKIP [$CASE]: $*"
  exit 77
}

# generator_failed STATUS: a model generator written in Python stopped. Only
# a missing onnx/numpy package (the generator exits 77) is a skip; any other
# failure is a broken test and fails it.
generator_failed() {
  [ "$1" -eq 77 ] && skip "python3 onnx package not available"
  fail "the model generator failed (exit $1)"
}

# corrupt FILE OFFSET: flips one bit of the byte at OFFSET (negative: from the end).
corrupt() {
  "$PY" - "$1" "$2" <<'EOF' || fail "could not corrupt $1"
import sys
path, off = sys.argv[1], int(sys.argv[2])
b = bytearray(open(path, "rb").read())
b[off] ^= 0x10
open(path, "wb").write(b)
EOF
}

# compile -> inspect -> run on a small zoo model; running the artifact and
# running the model directly give the same numbers.
case_model_compile_run_inspect() {
  must 0 compile cnn --image-size 32 -o "$TMP/cnn.vdla" --json
  cp "$OUT" "$TMP/compile.json"
  json '
assert d["model"] == "cnn" and d["kind"] == "zoo model" and d["target"] == "ref", d
assert d["config"] == "pynq" and len(d["config_hash"]) == 16
assert d["steps"] > 0 and d["steps"] < d["nodes_before"], (d["steps"], d["nodes_before"])
assert d["parameters"] > 0 and d["parameter_bytes"] == 4 * d["parameters"]
assert [p["name"] for p in d["passes"]][0] == "fold-constants"
assert d["seconds"]["total"] > 0
' "$OUT"
  [ -s "$TMP/cnn.vdla" ] || fail "no artifact written"

  must 0 inspect "$TMP/cnn.vdla" --json
  json '
with open(argv[0]) as f:
    c = json.load(f)
assert d["format_version"] == 4 and d["target"] == "ref" and d["model"] == "cnn", d
assert d["config"] == "pynq" and d["config_hash"] == argv[1], (d["config_hash"], argv[1])
assert d["steps"] == c["steps"] and d["parameters"] == c["parameters"], (d, c)
assert d["inputs"] == [{"name": "input", "type": "f32[1,3,32,32]"}], d["inputs"]
assert d["outputs"][0]["name"] == "logits"
assert sum(d["kernels"].values()) == d["steps"] and "ref.Conv" in d["kernels"], d["kernels"]
assert d["blobs"] == [] and d["metadata"]["source"] == "cnn"
' "$OUT" "$TMP/compile.json" "$(hash_of pynq)"

  must 0 inspect "$TMP/cnn.vdla" --ir
  match "$OUT" "VDLA artifact, format version 4, target ref"
  match "$OUT" "= ref\.Conv\(%input, "
  match "$OUT" "blobs: none"

  must 0 run "$TMP/cnn.vdla" --json
  cp "$OUT" "$TMP/run_artifact.json"
  json '
assert d["input"] == "synthetic" and d["target"] == "ref", d
assert d["outputs"][0]["name"] == "logits" and d["outputs"][0]["type"] == "f32[1,1000]", d["outputs"]
assert len(d["top"]) == 5
' "$OUT"
  must 0 run cnn --image-size 32 --json
  json '
with open(argv[0]) as f:
    a = json.load(f)
assert d["kind"] == "zoo model" and a["kind"] == "artifact"
assert d["outputs"] == a["outputs"], (d["outputs"], a["outputs"])
assert d["top"] == a["top"]
' "$OUT" "$TMP/run_artifact.json"

  must 0 run "$TMP/cnn.vdla"
  match "$OUT" "no --image given: ran on a deterministic synthetic input"
  match "$OUT" "^output 'logits' f32.1,1000.: min "
  must 0 run "$TMP/cnn.vdla" --profile --top 2
  match "$OUT" "^profile \("
  match "$OUT" "ref\.Conv .*stem"
  match "$OUT" "^by kernel:"
}

# inspect of a model: inputs, operator histogram, parameters, MACs, the IR.
case_model_inspect_zoo() {
  must 0 inspect resnet18 --json
  json '
assert d["kind"] == "zoo model" and d["name"] == "resnet18"
assert d["parameters"] >= 11689512, d["parameters"]
assert d["ops"]["Conv"] == 20 and d["ops"]["BatchNormalization"] == 20, d["ops"]
assert 1.8e9 < d["macs"] < 1.83e9, d["macs"]
assert d["inputs"] == [{"name": "input", "type": "f32[1,3,224,224]"}]
' "$OUT"
  must 0 inspect cnn --image-size 32 --optimize --ir
  match "$OUT" "zoo model 'cnn'"
  match "$OUT" "operators: .*Conv x"
  match "$OUT" "^graph cnn\(%input: f32.1,3,32,32.\)"
}

# Real photographs with class names: top-k per image.
case_model_run_images() {
  local img1=$SHARED_DATA/images/calib/n01644900_tailed_frog.JPEG
  local img2=$SHARED_DATA/images/calib/n02012849_crane.JPEG
  local labels=$SHARED_DATA/imagenet_classes.txt
  [ -f "$img1" ] && [ -f "$img2" ] && [ -f "$labels" ] || skip "no shared data at $SHARED_DATA"
  must 0 compile cnn --image-size 64 --batch 2 -o "$TMP/cnn.vdla"
  # Three images in batches of two: the last batch is padded.
  must 0 run "$TMP/cnn.vdla" --image "$img1" "$img2" "$img1" --labels "$labels" --top 3 --json
  json '
r = d["results"]
assert [x["image"] for x in r] == [argv[0], argv[1], argv[0]], r
assert d["seconds"]["runs"] == 2
for x in r:
    assert len(x["top"]) == 3
    assert all("label" in t and t["label"] for t in x["top"]), x
    p = [t["probability"] for t in x["top"]]
    assert p == sorted(p, reverse=True) and 0 < sum(p) <= 1.0001, p
assert r[0]["top"] == r[2]["top"]
' "$OUT" "$img1" "$img2"
  must 0 run "$TMP/cnn.vdla" --image "$img2"
  match "$OUT" "n02012849_crane\.JPEG:"
  match "$OUT" "^ +[0-9]+ +0\.[0-9]{4}  \(score "
  # The labels must fit the classes.
  printf 'a\nb\nc\n' >"$TMP/three.txt"
  must 1 run "$TMP/cnn.vdla" --image "$img2" --labels "$TMP/three.txt"
  match "$ERR" "three\.txt: has 3 names but the model has 1000 classes"
}

# An ONNX model written here with the onnx package: compile, inspect, run.
case_model_onnx() {
  "$PY" - "$TMP/tiny.onnx" <<'EOF' || generator_failed $?
import sys
try:
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper, TensorProto
except ImportError:
    sys.exit(77)
rng = np.random.default_rng(0)
w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
b = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b")
g = helper.make_graph(
    [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
     helper.make_node("Relu", ["c"], ["y"], name="relu")],
    "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])], [w, b])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(m, sys.argv[1])
EOF
  must 0 compile "$TMP/tiny.onnx" -o "$TMP/tiny.vdla"
  match "$OUT" "compiled .*tiny\.onnx \(ONNX model\) for target ref"
  must 0 inspect "$TMP/tiny.onnx"
  match "$OUT" "ONNX model"
  match "$OUT" "operators: Conv x1 Relu x1"
  must 0 run "$TMP/tiny.vdla" --json
  json '
o = d["outputs"][0]
assert o["name"] == "y" and o["type"] == "f32[1,4,8,8]" and o["min"] >= 0, o
' "$OUT"
  must 2 compile "$TMP/tiny.onnx" -o "$TMP/x.vdla" --batch 4
  match "$ERR" "apply to zoo models only"
}

# Damaged and wrong files: exit 1 with the file and the problem named.
case_model_bad_artifacts() {
  must 0 compile cnn --image-size 32 -o "$TMP/good.vdla"
  cp "$TMP/good.vdla" "$TMP/flipped.vdla"
  corrupt "$TMP/flipped.vdla" -100
  must 1 run "$TMP/flipped.vdla"
  match "$ERR" "^vdla run: error: .*flipped\.vdla: checksum mismatch .*damaged"
  must 1 inspect "$TMP/flipped.vdla"
  match "$ERR" "flipped\.vdla: checksum mismatch"
  head -c 1000 "$TMP/good.vdla" >"$TMP/cut.vdla"
  must 1 run "$TMP/cut.vdla"
  match "$ERR" "cut\.vdla: truncated: the header says [0-9]+ bytes but the file has 1000"
  cp "$TMP/good.vdla" "$TMP/version.vdla"
  corrupt "$TMP/version.vdla" 9
  must 1 inspect "$TMP/version.vdla"
  match "$ERR" "version\.vdla: artifact format version 4100 is not supported"
  must 1 compile "$TMP/good.vdla" -o "$TMP/again.vdla"
  match "$ERR" "good\.vdla: is already a compiled artifact"
  # Not an artifact (and not ONNX either).
  echo "hello" >"$TMP/text.onnx"
  must 1 run "$TMP/text.onnx"
  match "$ERR" "text\.onnx"
}

# Bad images: exit 1 naming the file.
case_model_bad_images() {
  must 0 compile cnn --image-size 32 -o "$TMP/cnn.vdla"
  echo "not an image" >"$TMP/text.jpg"
  must 1 run "$TMP/cnn.vdla" --image "$TMP/text.jpg"
  match "$ERR" "text\.jpg: not a JPEG or PNG image"
  : >"$TMP/empty.png"
  must 1 run "$TMP/cnn.vdla" --image "$TMP/empty.png"
  match "$ERR" "empty\.png: empty file, not an image"
  must 1 run "$TMP/cnn.vdla" --image "$TMP/missing.jpg"
  match "$ERR" "missing\.jpg: cannot open image"
  local img=$SHARED_DATA/images/calib/n01910747_jellyfish.JPEG
  if [ -f "$img" ]; then
    head -c 8000 "$img" >"$TMP/cut.jpg"
    must 1 run "$TMP/cnn.vdla" --image "$TMP/cut.jpg"
    match "$ERR" "cut\.jpg: bad JPEG image: Premature end of JPEG file"
  fi
}

# A real quantised network (the shared MobileNetV2 int8 QDQ export) compiled
# and run on real photographs: the top-1 classes are right.
case_model_onnx_mobilenet_images() {
  local model=$SHARED_DATA/models/mobilenetv2-imagenet-int8-qdq.onnx
  local c=$SHARED_DATA/images/calib
  [ -f "$model" ] && [ -f "$SHARED_DATA/imagenet_classes.txt" ] || skip "no shared data at $SHARED_DATA"
  must 0 compile "$model" -o "$TMP/mnv2.vdla"
  must 0 run "$TMP/mnv2.vdla" --image "$c/n01644900_tailed_frog.JPEG" "$c/n03791053_motor_scooter.JPEG" \
    "$c/n04465501_tractor.JPEG" --labels "$SHARED_DATA/imagenet_classes.txt" --json
  json '
top1 = [r["top"][0]["label"] for r in d["results"]]
assert top1 == ["tailed frog", "motor scooter", "tractor"], top1
assert d["results"][0]["top"][0]["probability"] > 0.9, d["results"][0]
' "$OUT"
}

# The same network on zcu104: eight of its ten quantised additions fuse into
# the convolutions that feed them (eight steps fewer); --no-add-fusion keeps
# every one a step of its own.
case_model_onnx_mobilenet_fused_additions() {
  local model=$SHARED_DATA/models/mobilenetv2-imagenet-int8-qdq.onnx
  [ -f "$model" ] || skip "no shared data at $SHARED_DATA"
  must 0 compile "$model" --target vdla --config zcu104 -o "$TMP/mnv2_fused.vdla" --json
  cp "$OUT" "$TMP/fused.json"
  must 0 compile "$model" --target vdla --config zcu104 --no-add-fusion -o "$TMP/mnv2_apart.vdla" --json
  json '
import json
fused = json.load(open("'"$TMP"'/fused.json"))
assert d["steps"] - fused["steps"] == 8, (d["steps"], fused["steps"])
' "$OUT"
  rm -f "$TMP/mnv2_fused.vdla" "$TMP/mnv2_apart.vdla"
}

# The figure the lead records: resnet18 compiles in well under a second.
case_model_compile_resnet18() {
  must 0 compile resnet18 -o "$TMP/r18.vdla" --json
  json '
s = d["seconds"]
print("vdla compile resnet18: %.1f ms (load %.1f, passes %.1f, lowering %.1f, write %.1f)" % (
    1e3 * s["total"], 1e3 * s["load"], 1e3 * s["passes"], 1e3 * s["lowering"], 1e3 * s["write"]))
assert d["steps"] == 32, d["steps"]
assert s["total"] < 5.0, s  # the budget is 1 s; a loaded CI machine gets slack
' "$OUT"
  rm -f "$TMP/r18.vdla"
}

# Target llvm: compile to an artifact that carries a shared library for this
# CPU, run it with the runtime alone, and agree with the reference kernels.
case_model_llvm_compile_run() {
  must 0 compile cnn --image-size 32 --target llvm -o "$TMP/cnn_llvm.vdla" --json
  json 'assert d["target"] == "llvm" and d["steps"] > 0, d' "$OUT"
  must 0 inspect "$TMP/cnn_llvm.vdla" --json
  json '
assert [b["name"] for b in d["blobs"]] == ["llvm.so"] and d["blobs"][0]["bytes"] > 0, d["blobs"]
assert all(k.startswith("llvm.") for k in d["kernels"]), d["kernels"]
' "$OUT"
  must 0 run "$TMP/cnn_llvm.vdla" --json
  cp "$OUT" "$TMP/llvm.json"
  json 'assert d["device"] == "host CPU (generated code)", d["device"]' "$OUT"
  must 0 run cnn --image-size 32 --json
  json '
with open(argv[0]) as f:
    g = json.load(f)
a, b = g["outputs"][0], d["outputs"][0]
assert a["type"] == b["type"], (a, b)
for x, y in zip(a["first"] + [a["min"], a["max"]], b["first"] + [b["min"], b["max"]]):
    assert abs(x - y) <= 1e-4 * max(1.0, abs(y)), (x, y)
assert [t["index"] for t in g["top"]] == [t["index"] for t in d["top"]], (g["top"], d["top"])
' "$OUT" "$TMP/llvm.json"
}

# An operator the CPU back end has no code for runs on its reference kernel,
# and the compile report names the step; the run agrees with target ref.
case_model_llvm_unsupported() {
  "$PY" - "$TMP/transpose.onnx" <<'EOF' || generator_failed $?
import sys
try:
    from onnx import helper, TensorProto
    import onnx
except ImportError:
    sys.exit(77)
g = helper.make_graph(
    [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 3, 1], name="swap_axes")],
    "transposed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 5])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 5, 3])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
EOF
  must 0 compile "$TMP/transpose.onnx" --target llvm -o "$TMP/x.vdla"
  match "$OUT" "reference kernels \(no generated code\): swap_axes \(ref.Transpose\)"
  must 0 compile "$TMP/transpose.onnx" --target llvm -o "$TMP/x.vdla" --json
  "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["reference_steps"] == [{"name": "swap_axes", "kernel": "ref.Transpose"}], d' "$OUT" ||
    fail "the JSON report does not list the reference step"
  "$PY" -c 'import numpy as np; np.save("'"$TMP"'/x.npy", np.arange(60, dtype=np.float32).reshape(1, 3, 4, 5))'
  must 0 run "$TMP/x.vdla" --input "$TMP/x.npy" --save-outputs "$TMP/llvm_out"
  must 0 compile "$TMP/transpose.onnx" -o "$TMP/ref.vdla"
  must 0 run "$TMP/ref.vdla" --input "$TMP/x.npy" --save-outputs "$TMP/ref_out"
  cmp -s "$TMP/llvm_out/y.npy" "$TMP/ref_out/y.npy" || fail "llvm and ref outputs differ"
}

# Target vdla: the CPU steps are generated code by default and the results
# are identical to the reference kernels' (--cpu-kernels ref).
case_model_vdla_cpu_kernels() {
  must 0 compile cnn --image-size 32 --target vdla -o "$TMP/cnn_vdla.vdla"
  match "$OUT" "cpu steps: [1-9][0-9]* generated \(llvm\), 0 reference kernels"
  must 0 inspect "$TMP/cnn_vdla.vdla" --json
  json 'assert "llvm.so" in [b["name"] for b in d["blobs"]], d["blobs"]' "$OUT"
  must 0 run "$TMP/cnn_vdla.vdla" --json
  cp "$OUT" "$TMP/generated.json"
  must 0 run cnn --image-size 32 --target vdla --cpu-kernels ref --json
  json '
with open(argv[0]) as f:
    g = json.load(f)
assert g["outputs"] == d["outputs"], (g["outputs"], d["outputs"])
' "$OUT" "$TMP/generated.json"
}

# --print-after-all and --time-passes go on through the target's stages: the
# IR after a graph stage, a summary of the artifact after a stage that makes
# or changes it, what a plan or check stage decided, and one timing table with the graph passes and the stages;
# --json names each stage's target.
case_model_compile_stages() {
  must 0 compile cnn --image-size 16 --config tiny --target vdla -o "$TMP/cnn.vdla" --print-after-all --time-passes
  match "$OUT" "^// ----- IR after fuse-activations -----$"
  match "$OUT" "^// ----- IR after qlinear-to-qconv \(target vdla\) \(unchanged\) -----$"
  match "$OUT" "^// ----- IR after quantize \(target vdla\) -----$"
  match "$OUT" "^// ----- plan after accel-partition \(target vdla\) -----$"
  match "$OUT" "^partition: [1-9][0-9]* of [0-9]+ nodes on the accelerator$"
  match "$OUT" "^// ----- plan after accel-arena \(target vdla\) -----$"
  match "$OUT" "^activation arena: [1-9][0-9]* bytes"
  match "$OUT" "^// ----- artifact after accel-codegen \(target vdla\) -----$"
  match "$OUT" "^// ----- artifact after accel-token-check \(target vdla\) \(unchanged\) -----$"
  match "$OUT" "^  program 0 '.*': load->compute [0-9]+ \(max [0-9]+\)"
  match "$OUT" "^// ----- artifact after cpu-fallback \(target vdla\) -----$"
  match "$OUT" "^artifact 'cnn': target vdla, config tiny; [0-9]+ steps"
  match "$OUT" "^  accelerator programs: [1-9]"
  for stage in qlinear-to-qconv quantize accel-partition accel-arena accel-codegen accel-token-check cpu-fallback; do
    match "$OUT" "^${stage} \(vdla\) +[0-9]+\.[0-9]+ "
  done
  match "$OUT" "^fold-constants +[0-9]+\.[0-9]+ "
  must 0 compile cnn --image-size 16 --target llvm -o "$TMP/cnn_llvm.vdla" --json
  json '
stages = [(p["name"], p["target"]) for p in d["passes"] if p["target"] is not None]
assert stages == [("qlinear-to-qconv", "llvm"), ("llvm-codegen", "llvm")], stages
assert d["passes"][0]["target"] is None, d["passes"][0]
' "$OUT"
}

# vdla run --trace on the cycle device: one timeline of the whole network,
# every CPU step and every accelerator program with its modules' activity, on
# one axis (accelerator time = cycles at the config's clock).
case_model_run_timeline() {
  must 0 run resnet18 --image-size 64 --target vdla --device cycle --trace "$TMP/t.json"
  match "$ERR" "timeline of the run: .*t\.json \([0-9]+ events; open in ui\.perfetto\.dev\)"
  json '
ev = d["traceEvents"]
spans = [e for e in ev if e["ph"] == "X"]
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert names[(2, 2)] == "load" and names[(2, 3)] == "compute" and names[(2, 4)] == "store", names
programs = [e for e in spans if (e["pid"], e["tid"]) == (2, 1)]
assert len(programs) == 23, len(programs)              # ResNet-18: 20 convolutions, both poolings, the classifier
programs.sort(key=lambda e: e["ts"])
for i, p in enumerate(programs):
    assert abs(p["dur"] - p["args"]["cycles"] / 150.0) < 1e-6, p  # pynq: 150 MHz
    acts = [e for e in spans if e["pid"] == 2 and e["tid"] > 1 and e["args"]["step"] == p["name"]]
    assert acts, p["name"]
    # Within the layer, give or take the cycle between the start command and
    # the cycle counter starting (0.0067 us a cycle at 150 MHz). The layers
    # run as one program chain: the first loads of a layer may start during the
    # layer before, never before it.
    start = programs[i - 1]["ts"] if i > 0 else p["ts"]
    assert all(start - 0.02 <= a["ts"] and a["ts"] + a["dur"] <= p["ts"] + p["dur"] + 0.02 for a in acts), p["name"]
    assert any(a["ts"] >= p["ts"] - 0.02 for a in acts), p["name"]
    # The poolings are ALU passes over their input in the accumulators; the others multiply.
    want = {"maxpool.i8": "ALU MAX", "avgpool.qlinear": "ALU ADD"}.get(p["name"], "GEMM")
    assert any(a["name"] == want for a in acts), (p["name"], {a["name"] for a in acts})
host = [e for e in spans if e["pid"] == 1]
assert any(e["name"] == "fc.to_nc" for e in host), [e["name"] for e in host]
assert sum(1 for e in host if e["name"].endswith(": pack and upload")) == 23
# One axis: host and accelerator spans follow one another without overlapping.
seq = sorted(host + programs, key=lambda e: e["ts"])
for a, b in zip(seq, seq[1:]):
    assert a["ts"] + a["dur"] <= b["ts"] + 1e-6, (a["name"], b["name"])
' "$TMP/t.json"
  # fsim has no timing: the same timeline with host time for its runs.
  must 0 run resnet18 --image-size 64 --target vdla --device fsim --trace "$TMP/f.json"
  json '
assert any(e["ph"] == "M" and "no timing" in e["args"]["name"] for e in d["traceEvents"])
assert not any(e["ph"] == "X" and e["pid"] == 2 and e["tid"] > 1 for e in d["traceEvents"])
' "$TMP/f.json"
}

# conv_relu_model DIR NAME SEED: a seeded Conv(3->8, 3x3, pad 1) + Relu model
# on a 1x3x16x16 input, written as DIR/NAME, and an input tensor DIR/x.npy.
conv_relu_model() {
  "$PY" - "$1" "$2" "$3" <<'EOF' || generator_failed $?
import sys
try:
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper, TensorProto
except ImportError:
    sys.exit(77)
d, name, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(seed)
W = numpy_helper.from_array((rng.standard_normal((8, 3, 3, 3)) * 0.2).astype(np.float32), "W")
B = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "B")
nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"])]
g = helper.make_graph(nodes, "conv_relu", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 16, 16])], [W, B])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
onnx.save(m, d + "/" + name)
np.save(d + "/x.npy", rng.standard_normal((1, 3, 16, 16)).astype(np.float32))
EOF
}

# vdla run --input X.npy --save-outputs DIR: a model run on exact tensors, its
# whole output kept and compared with onnxruntime's on the same input.
case_model_npy_io() {
  conv_relu_model "$TMP" m.onnx 3
  "$PY" -c 'import numpy as np, sys; np.save(sys.argv[1] + "/small.npy", np.zeros((1, 3, 8, 8), np.float32)); np.save(sys.argv[1] + "/ints.npy", np.zeros((1, 3, 16, 16), np.int32))' "$TMP" ||
    fail "could not write the test tensors"
  for target in ref llvm; do
    must 0 run "$TMP/m.onnx" --target $target --input "$TMP/x.npy" --save-outputs "$TMP/out_$target"
    match "$OUT" "outputs saved in"
    [ -s "$TMP/out_$target/y.npy" ] || fail "no y.npy for target $target"
  done
  # onnxruntime lives in the python3 on PATH (scripts/setup_python.sh).
  if python3 -c 'import onnxruntime' 2>/dev/null; then
    python3 - "$TMP" <<'EOF' || fail "outputs differ from onnxruntime's"
import sys
import numpy as np
import onnxruntime as ort
d = sys.argv[1]
x = np.load(d + "/x.npy")
want = ort.InferenceSession(d + "/m.onnx", providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
for target, tol in (("ref", 1e-5), ("llvm", 1e-4)):
    got = np.load(d + "/out_%s/y.npy" % target)
    assert got.shape == want.shape and got.dtype == want.dtype, (target, got.shape, got.dtype)
    err = float(np.abs(got - want).max())
    assert err <= tol, (target, err)
    print("%s: max |vdla - onnxruntime| = %.3g over %d outputs" % (target, err, got.size))
EOF
  elif [ "${VDLA_REQUIRE_ORT:-0}" = 1 ]; then
    fail "onnxruntime is required (VDLA_REQUIRE_ORT=1) but not importable by python3"
  fi
  must 1 run "$TMP/m.onnx" --input "$TMP/small.npy"
  match "$ERR" "small\.npy: holds f32\[1,3,8,8\], but the model's input 'x' is f32\[1,3,16,16\]"
  must 1 run "$TMP/m.onnx" --input "$TMP/ints.npy"
  match "$ERR" "ints\.npy: holds i32\[1,3,16,16\], but the model's input 'x' is f32\[1,3,16,16\]"
  must 1 run "$TMP/m.onnx" --input "$TMP/x.npy" --input "$TMP/x.npy"
  match "$ERR" "the model has 1 input\(s\), --input gave 2"
  echo "not numpy" > "$TMP/junk.npy"
  must 1 run "$TMP/m.onnx" --input "$TMP/junk.npy"
  match "$ERR" "junk\.npy: not a NumPy \.npy file"
  head -c 200 "$TMP/x.npy" > "$TMP/cut.npy"  # the 128-byte header and 72 bytes of data
  must 1 run "$TMP/m.onnx" --input "$TMP/cut.npy"
  match "$ERR" "cut\.npy: holds 72 bytes of data, the header's f32\[1,3,16,16\] needs 3072"
  head -c 50 "$TMP/x.npy" > "$TMP/header.npy"
  must 1 run "$TMP/m.onnx" --input "$TMP/header.npy"
  match "$ERR" "header\.npy: \.npy header is cut short"
}

# A model whose weights are stored in a file beside it (ONNX external data, as
# onnx.save_model(..., save_as_external_data=True) writes them) runs exactly
# like the same model with its weights inside, from any working directory.
case_model_external_data() {
  conv_relu_model "$TMP" inline.onnx 5
  "$PY" - "$TMP" <<'EOF' || generator_failed $?
import os, sys
import onnx
from onnx import TensorProto
d = sys.argv[1]
os.makedirs(d + "/ext", exist_ok=True)
onnx.save_model(onnx.load(d + "/inline.onnx"), d + "/ext/m.onnx", save_as_external_data=True,
                all_tensors_to_one_file=True, location="m.weights", size_threshold=0)
ext = onnx.load(d + "/ext/m.onnx", load_external_data=False)
assert all(t.data_location == TensorProto.EXTERNAL for t in ext.graph.initializer), "weights not external"
EOF
  must 0 run "$TMP/inline.onnx" --input "$TMP/x.npy" --save-outputs "$TMP/out_inline"
  (cd / && "$VDLA" run "$TMP/ext/m.onnx" --input "$TMP/x.npy" --save-outputs "$TMP/out_ext" >/dev/null) ||
    fail "the external-data model did not run from another working directory"
  cmp "$TMP/out_inline/y.npy" "$TMP/out_ext/y.npy" || fail "external data gave other outputs than inline weights"
  # The weights file gone: refused naming the tensor and the file.
  mv "$TMP/ext/m.weights" "$TMP/m.weights.moved"
  must 1 run "$TMP/ext/m.onnx" --input "$TMP/x.npy"
  match "$ERR" "m\.onnx: tensor '[WB]': cannot read external data file .*m\.weights"
}

# Signed artifacts: vdla keygen, compile --sign, sign; with --trusted-keys (or
# $VDLA_TRUSTED_KEYS) an unsigned, untrusted or tampered artifact is refused
# with the reason and never run; inspect names the signer.
case_model_signed_artifacts() {
  must 0 keygen "$TMP/build"
  must 0 keygen "$TMP/stranger"
  must 1 keygen "$TMP/build"
  match "$ERR" "build.key: exists; give --force"
  mkdir -p "$TMP/trusted"
  cp "$TMP/build.pub" "$TMP/trusted/"
  must 0 compile cnn --image-size 32 --target llvm -o "$TMP/signed.vdla" --sign "$TMP/build.key"
  must 0 inspect "$TMP/signed.vdla"
  match "$OUT" "signed by key $(cut -d' ' -f2 "$TMP/build.pub")"
  must 0 run "$TMP/signed.vdla" --trusted-keys "$TMP/trusted"
  must 0 compile cnn --image-size 32 --target llvm -o "$TMP/plain.vdla"
  must 1 run "$TMP/plain.vdla" --trusted-keys "$TMP/trusted"
  match "$ERR" "plain.vdla: unsigned artifact; refusing it"
  VDLA_TRUSTED_KEYS="$TMP/trusted" must 1 run "$TMP/plain.vdla"
  match "$ERR" "unsigned artifact; refusing it \(keys trusted from \\\$VDLA_TRUSTED_KEYS"
  must 0 sign "$TMP/plain.vdla" --key "$TMP/stranger.key" -o "$TMP/stranger.vdla"
  must 1 run "$TMP/stranger.vdla" --trusted-keys "$TMP/trusted"
  match "$ERR" "stranger.vdla: signed by key [0-9a-f]{16}\.\.\., which is not trusted"
  "$PY" -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[200] ^= 1; open(sys.argv[2], "wb").write(b)' \
    "$TMP/signed.vdla" "$TMP/tampered.vdla"
  must 1 run "$TMP/tampered.vdla" --trusted-keys "$TMP/trusted"
  match "$ERR" "tampered.vdla: the signature does not match the contents"
  # Signed in place, the plain artifact becomes acceptable.
  must 0 sign "$TMP/plain.vdla" --key "$TMP/build.key"
  must 0 run "$TMP/plain.vdla" --trusted-keys "$TMP/trusted"
}


source "$(dirname "${BASH_SOURCE[0]}")/cli_test.sh" "$@"

