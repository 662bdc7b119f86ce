#!/usr/bin/python3
"""Exports torchvision models (weights=None, seeded) to ONNX with one input and
torch's own output, laid out like an ONNX backend node test:

    OUT/torchvision_<name>/model.onnx
    OUT/torchvision_<name>/test_data_set_0/input_0.pb, output_0.pb

so that the same C++ runner that checks the ONNX node tests compares the
reference executor against torch. Run with Debian's /usr/bin/python3 (it has
python3-torch, python3-torchvision and python3-onnx).

usage: export_torchvision.py OUT [--models resnet18,mobilenetv2] [--opset 13] [--seed 0]
"""
import argparse
import os
import sys

import onnx
import onnx.numpy_helper
import torch
import torchvision

BUILDERS = {
    "resnet18": torchvision.models.resnet18,
    "resnet34": torchvision.models.resnet34,
    "resnet50": torchvision.models.resnet50,
    "mobilenetv2": torchvision.models.mobilenet_v2,
}


def export(name, out_dir, opset, seed):
    torch.manual_seed(seed)
    model = BUILDERS[name](weights=None)
    # Random running statistics so that batch-norm folding has real work to do
    # and activations keep a sane range through the depth of the network.
    generator = torch.Generator().manual_seed(seed + 1)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=generator) * 0.1)
    model.eval()
    x = torch.randn(1, 3, 224, 224, generator=generator)
    with torch.no_grad():
        y = model(x)
    case_dir = os.path.join(out_dir, "torchvision_" + name)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    torch.onnx.export(model, x, os.path.join(case_dir, "model.onnx"), opset_version=opset,
                      input_names=["input"], output_names=["logits"], do_constant_folding=False)
    for kind, tensor in (("input_0", x), ("output_0", y)):
        proto = onnx.numpy_helper.from_array(tensor.numpy(), kind)
        with open(os.path.join(data_dir, kind + ".pb"), "wb") as f:
            f.write(proto.SerializeToString())
    print(f"exported {name} (opset {opset}) to {case_dir}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--models", default="resnet18,mobilenetv2")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name in args.models.split(","):
        if name not in BUILDERS:
            sys.exit(f"export_torchvision: unknown model '{name}' (have {', '.join(BUILDERS)})")
        export(name, args.out, args.opset, args.seed)


if __name__ == "__main__":
    main()
