"""Writes small photo-like images in the formats that decoding must handle as PIL does.

Usage: make_test_images.py OUT_DIR

Each is a smooth colour field with fine detail and noise (so that resizing and
JPEG compression both have something to do), seeded so that runs are equal:
  rgb.png      640x480 RGB PNG (shrunk by Resize(256))
  rgba.png     333x500 RGBA PNG (alpha must be dropped, not composited)
  palette.png  300x260 palette PNG
  grey.jpg     241x300 greyscale JPEG (short side enlarged to 256)
  cmyk.jpg     500x375 CMYK JPEG (as PIL writes it: Adobe marker, inverted ink)
"""
import os
import sys

import numpy as np
from PIL import Image


def photo_like(width, height, channels, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    planes = []
    for c in range(channels):
        fx, fy = rng.uniform(0.5, 3.0, 2)
        smooth = 127 + 90 * np.sin(fx * 2 * np.pi * x / width + c) * np.cos(fy * 2 * np.pi * y / height)
        stripes = 30 * np.sin(x * 0.9 + y * 0.4 * (c + 1))  # detail near the sampling limit
        planes.append(smooth + stripes + rng.normal(0, 12, (height, width)))
    return np.clip(np.stack(planes, axis=-1), 0, 255).astype(np.uint8)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    Image.fromarray(photo_like(640, 480, 3, 1), "RGB").save(os.path.join(out, "rgb.png"))
    Image.fromarray(photo_like(333, 500, 4, 2), "RGBA").save(os.path.join(out, "rgba.png"))
    Image.fromarray(photo_like(300, 260, 3, 3), "RGB").quantize(colors=200).save(os.path.join(out, "palette.png"))
    Image.fromarray(photo_like(241, 300, 1, 4)[:, :, 0], "L").save(os.path.join(out, "grey.jpg"), quality=90)
    Image.fromarray(photo_like(500, 375, 4, 5), "CMYK").save(os.path.join(out, "cmyk.jpg"), quality=90)


if __name__ == "__main__":
    main()
