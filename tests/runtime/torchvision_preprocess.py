"""torchvision's standard ImageNet preprocessing of images, saved for comparison.

Usage: torchvision_preprocess.py OUT_DIR IMAGE...

For every image, with im = Image.open(IMAGE).convert("RGB") (how ImageNet
models are evaluated), writes to OUT_DIR:
  <file name>.decoded.npy  u8[H,W,3]    im itself
  <file name>.resized.npy  u8[h,w,3]    Resize(256)(im): the shorter side to 256
  <file name>.npy          f32[3,224,224]
      Compose([Resize(256), CenterCrop(224), ToTensor(),
               Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])(im)
The intermediate images tell a decoding difference from a resizing one.
Run with an interpreter that has torch, torchvision and PIL (Debian's
/usr/bin/python3 with python3-torchvision).
"""
import os
import sys

import numpy as np
from PIL import Image
from torchvision import transforms


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    resize = transforms.Resize(256)
    rest = transforms.Compose([
        transforms.CenterCrop(224),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    for path in sys.argv[2:]:
        with Image.open(path) as image:
            decoded = image.convert("RGB")
        resized = resize(decoded)
        stem = os.path.join(out_dir, os.path.basename(path))
        np.save(stem + ".decoded.npy", np.asarray(decoded, dtype=np.uint8))
        np.save(stem + ".resized.npy", np.asarray(resized, dtype=np.uint8))
        np.save(stem + ".npy", rest(resized).numpy().astype(np.float32))


if __name__ == "__main__":
    main()
