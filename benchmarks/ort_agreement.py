#!/usr/bin/env python3
"""Top-1 agreement with onnxruntime on photos the project does not have.

The published int8 MobileNetV2 (QDQ, ../shared/data/models) runs twice on
every photo: in onnxruntime on torchvision's ImageNet transform of the PIL
image (the reference path), and with `vdla` on the accelerator (fsim) on the
project's own preprocessing of the file, as `vdla run --target vdla --device
fsim` does. New photos are made from the 32 shared ones with PIL: mirror
images, off-centre crops, rotations, changes of brightness, contrast and
colour, downscaling and JPEG re-encoding, written as JPEG or PNG.

Prints, and writes with --json: the top-1 agreement, the photos whose class
differs (with the two top logits), how far the logits are apart in the output's
quantisation steps, and how far the project's input tensors are from
torchvision's. PIL and torchvision come from Debian's /usr/bin/python3 (run in
a subprocess), onnxruntime and vdla from this interpreter.

    python3 benchmarks/ort_agreement.py [--variants 10] [--config pynq] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"

# Runs under Debian's python3 (PIL, torchvision): writes the variants of every
# photo and torchvision's input tensor of each.
MAKE_VARIANTS = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    import numpy as np
    from PIL import Image, ImageEnhance
    import torchvision.transforms as T

    photos, out, count = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    transform = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(),
                           T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])

    def crop(im, f, fx, fy):
        w, h = im.size
        cw, ch = int(w * f), int(h * f)
        x, y = int((w - cw) * fx), int((h - ch) * fy)
        return im.crop((x, y, x + cw, y + ch))

    variants = [
        ("mirror", lambda im: im.transpose(Image.FLIP_LEFT_RIGHT), "png"),
        ("crop80", lambda im: crop(im, 0.8, 0.5, 0.5), "png"),
        ("crop70tl", lambda im: crop(im, 0.7, 0.2, 0.25), "jpg"),
        ("rot12", lambda im: im.rotate(12, resample=Image.BILINEAR), "png"),
        ("rot-8", lambda im: im.rotate(-8, resample=Image.BICUBIC, expand=True), "jpg"),
        ("dark", lambda im: ImageEnhance.Brightness(im).enhance(0.75), "png"),
        ("contrast", lambda im: ImageEnhance.Contrast(im).enhance(1.3), "jpg"),
        ("colour", lambda im: ImageEnhance.Color(im).enhance(0.6), "png"),
        ("small", lambda im: im.resize((max(1, im.width * 3 // 5), max(1, im.height * 3 // 5)), Image.LANCZOS), "png"),
        ("q60", lambda im: im, "jpg"),
        ("crop60br", lambda im: crop(im, 0.6, 0.8, 0.7), "png"),
        ("mirror-crop85", lambda im: crop(im.transpose(Image.FLIP_LEFT_RIGHT), 0.85, 0.4, 0.6), "jpg"),
    ][:count]
    made = []
    for photo in sorted(photos.iterdir()):
        im = Image.open(photo).convert("RGB")
        for name, op, ext in variants:
            path = out / f"{photo.stem}.{name}.{ext}"
            v = op(im)
            if ext == "jpg":
                v.save(path, quality=60 if name == "q60" else 90)
            else:
                v.save(path)
            x = transform(Image.open(path).convert("RGB")).unsqueeze(0).numpy()
            np.save(str(path) + ".npy", x)
            made.append(str(path))
    json.dump(made, open(out / "photos.json", "w"))
    """
)


def logit_step(logits: np.ndarray) -> float:
    """The output's quantisation step: the smallest gap between distinct logits."""
    values = np.unique(logits)
    gaps = np.diff(values)
    return float(gaps[gaps > 0].min()) if gaps.size else 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(SHARED / "models" / "mobilenetv2-imagenet-int8-qdq.onnx"))
    parser.add_argument("--photos", default=str(SHARED / "images" / "calib"))
    parser.add_argument("--variants", type=int, default=10, help="new photos made from each shared one (up to 12)")
    parser.add_argument("--config", default="pynq")
    parser.add_argument("--device", default="fsim")
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args()

    import onnxruntime as ort
    import vdla

    with tempfile.TemporaryDirectory(prefix="vdla-agreement-") as tmp:
        t0 = time.time()
        subprocess.run(["/usr/bin/python3", "-c", MAKE_VARIANTS, args.photos, tmp, str(args.variants)], check=True)
        photos = json.load(open(os.path.join(tmp, "photos.json")))
        print(f"[{time.strftime('%H:%M:%S')}] {len(photos)} photos made from {args.photos} "
              f"({time.time() - t0:.0f} s)", flush=True)

        options = ort.SessionOptions()
        options.log_severity_level = 3  # not the warnings about initializers the model does not use
        session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
        feed = session.get_inputs()[0].name
        artifact = vdla.load(args.model).compile(target="vdla", config=args.config)
        device = vdla.Session(artifact, device=args.device, config=args.config)

        rows, worst_tensor, steps_apart = [], 0.0, []
        for i, path in enumerate(photos):
            reference_input = np.load(path + ".npy")
            ours_input = vdla.image_input(path)
            worst_tensor = max(worst_tensor, float(np.abs(ours_input - reference_input).max()))
            want = session.run(None, {feed: reference_input})[0][0]
            got = device.run(ours_input)[0][0]
            step = logit_step(want)
            steps_apart.append(float(np.abs(got - want).max() / step))
            top_want, top_got = int(np.argmax(want)), int(np.argmax(got))
            second = np.sort(want)[-2]
            rows.append({"photo": os.path.basename(path), "onnxruntime": top_want, "vdla": top_got,
                         "agree": top_want == top_got, "identical_logits": bool(np.array_equal(got, want)),
                         "max_steps_apart": steps_apart[-1],
                         "onnxruntime_lead_steps": float((want[top_want] - second) / step)})
            if (i + 1) % 32 == 0 or i + 1 == len(photos):
                agree = sum(r["agree"] for r in rows)
                print(f"[{time.strftime('%H:%M:%S')}] {i + 1}/{len(photos)}: top-1 agrees on {agree}", flush=True)

    agree = sum(r["agree"] for r in rows)
    identical = sum(r["identical_logits"] for r in rows)
    result = {
        "model": os.path.basename(args.model), "config": args.config, "device": args.device, "photos": len(rows),
        "top1_agreement": agree / len(rows), "agreeing": agree, "identical_logits": identical,
        "max_input_difference": worst_tensor,
        "median_max_steps_apart": float(np.median(steps_apart)), "worst_steps_apart": float(np.max(steps_apart)),
        "disagreements": [r for r in rows if not r["agree"]], "per_photo": rows,
    }
    print(f"top-1 agreement with onnxruntime: {agree}/{len(rows)} ({100.0 * agree / len(rows):.1f}%); "
          f"identical logits on {identical}; largest logit difference per photo: median "
          f"{result['median_max_steps_apart']:.0f}, worst {result['worst_steps_apart']:.0f} output steps; "
          f"input tensors within {worst_tensor:.2g} of torchvision's")
    for r in result["disagreements"]:
        print(f"  {r['photo']}: onnxruntime {r['onnxruntime']} (leads by {r['onnxruntime_lead_steps']:.0f} steps), "
              f"vdla {r['vdla']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
