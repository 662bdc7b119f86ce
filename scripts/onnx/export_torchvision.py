#!/usr/bin/python3
"""Exports torchvision classifiers (weights=None, seeded) to ONNX with one input and
torch's own output, laid out like an ONNX backend node test:

    OUT/torchvision_<name>/model.onnx
    OUT/torchvision_<name>/test_data_set_0/input_0.pb, output_0.pb

so that the same C++ runner that checks the ONNX node tests compares the
reference executor against torch. Run with Debian's /usr/bin/python3 (it has
python3-torch, python3-torchvision and python3-onnx).

Each model is exported at the smallest input its architecture takes (INPUT_SIZE),
so that the checks stay fast. With --keep-going a model that fails to export is
recorded in OUT/export_status.json (with the exporter's message) instead of
stopping the run; the status also lists the ONNX operators of every export.

usage: export_torchvision.py OUT [--models resnet18,mobilenet_v2|all] [--opset 13] [--seed 0] [--keep-going]
"""
import argparse
import json
import os
import sys
import traceback

import onnx
import onnx.numpy_helper
import torch
import torchvision

# Every classification builder torchvision ships (not detection, segmentation,
# video or optical flow: those live in sub-modules).
BUILDERS = {name: torchvision.models.get_model_builder(name)
            for name in torchvision.models.list_models(module=torchvision.models)}
# Older names the test suite used.
ALIASES = {"mobilenetv2": "mobilenet_v2"}

# Input side per model where 64 does not work: an adaptive pooling to a fixed
# grid exports only when the grid divides the feature map (AlexNet 6x6 and VGG
# 7x7 after a stride of 32), Inception-v3 needs at least 75 pixels, MaxViT
# partitions every stage's map into 7x7 windows and ViT's position embeddings
# are built for the image size (the builder takes image_size, see EXTRA_ARGS).
INPUT_SIZE = {"alexnet": 224, "inception_v3": 96, "maxvit_t": 224}
for _name in BUILDERS:
    if _name.startswith("vgg"):
        INPUT_SIZE[_name] = 224
DEFAULT_INPUT_SIZE = 64
EXTRA_ARGS = {name: {"image_size": DEFAULT_INPUT_SIZE} for name in BUILDERS if name.startswith("vit_")}
# Inception-v3 and GoogLeNet build auxiliary classifiers unless told not to;
# in eval mode they return only the main logits either way.
for _name in ("inception_v3", "googlenet"):
    EXTRA_ARGS[_name] = {"aux_logits": False, "init_weights": True}


def input_size(name):
    return INPUT_SIZE.get(name, DEFAULT_INPUT_SIZE)


def randomise_norm_statistics(model, generator):
    # Random running statistics so that batch-norm folding has real work to do
    # and activations keep a sane range through the depth of the network.
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=generator) * 0.1)


def randomise_zero_layers(model, generator):
    # torchvision zero-initialises some layers (the ViTs' classification
    # head): their logits would all be zero and every comparison 0/0.
    for m in model.modules():
        if isinstance(m, torch.nn.Linear) and not m.weight.data.any():
            fan_in = m.weight.shape[1]
            m.weight.data.copy_(torch.randn(m.weight.shape, generator=generator) / fan_in ** 0.5)
            if m.bias is not None:
                m.bias.data.copy_(torch.randn(m.bias.shape, generator=generator) * 0.1)


def export(name, out_dir, opset, seed):
    torch.manual_seed(seed)
    model = BUILDERS[name](weights=None, **EXTRA_ARGS.get(name, {}))
    generator = torch.Generator().manual_seed(seed + 1)
    randomise_norm_statistics(model, generator)
    randomise_zero_layers(model, generator)
    model.eval()
    size = input_size(name)
    x = torch.randn(1, 3, size, size, generator=generator)
    with torch.no_grad():
        y = model(x)
    case_dir = os.path.join(out_dir, "torchvision_" + name)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    model_path = os.path.join(case_dir, "model.onnx")
    torch.onnx.export(model, x, model_path, opset_version=opset,
                      input_names=["input"], output_names=["logits"], do_constant_folding=False)
    for kind, tensor in (("input_0", x), ("output_0", y)):
        proto = onnx.numpy_helper.from_array(tensor.numpy(), kind)
        with open(os.path.join(data_dir, kind + ".pb"), "wb") as f:
            f.write(proto.SerializeToString())
    operators = sorted({n.op_type for n in onnx.load(model_path, load_external_data=False).graph.node})
    print(f"exported {name} (opset {opset}, input {size}x{size}) to {case_dir}", flush=True)
    return {"exported": True, "input_size": size, "operators": operators}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--models", default="resnet18,mobilenet_v2", help="comma-separated names, or 'all'")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep-going", action="store_true",
                        help="record export failures in OUT/export_status.json and go on")
    args = parser.parse_args()
    names = list(BUILDERS) if args.models == "all" else [ALIASES.get(n, n) for n in args.models.split(",")]
    status = {}
    for name in names:
        if name not in BUILDERS:
            sys.exit(f"export_torchvision: unknown model '{name}' (have {', '.join(BUILDERS)})")
        try:
            status[name] = export(name, args.out, args.opset, args.seed)
        except Exception as e:  # the exporter's own exception types vary by version
            if not args.keep_going:
                raise
            message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"could not export {name} (opset {args.opset}): {message}", flush=True)
            traceback.print_exc(limit=1)
            status[name] = {"exported": False, "input_size": input_size(name), "error": message}
    if args.keep_going:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "export_status.json"), "w") as f:
            json.dump({"opset": args.opset, "models": status}, f, indent=1)


if __name__ == "__main__":
    main()
