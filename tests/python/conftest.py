"""Shared fixtures of the Python package's tests.

Data (the MobileNetV2 ONNX model, the 32 calibration photos and the ImageNet
class names) comes from $VDLA_SHARED_DATA_DIR, which CTest sets; run directly,
the tests look in <repository>/../shared/data. Compiled models are session
fixtures, so that every test file reuses them instead of compiling again.
"""

import os
from pathlib import Path

import numpy as np
import pytest

import vdla

REPO = Path(__file__).resolve().parents[2]


def shared_data_dir() -> Path:
    env = os.environ.get("VDLA_SHARED_DATA_DIR")
    return Path(env).resolve() if env else (REPO.parent / "shared" / "data").resolve()


DATA = shared_data_dir()
MOBILENET = DATA / "models" / "mobilenetv2-imagenet-int8-qdq.onnx"
PHOTOS_DIR = DATA / "images" / "calib"
CLASSES_FILE = DATA / "imagenet_classes.txt"

# Zoo models are built at this input size wherever 224 is not needed.
SMALL = 64


def label_of(path) -> str:
    """The class name in a photo's file name: n01629819_European_fire_salamander.JPEG -> 'European fire salamander'."""
    stem = Path(path).stem
    return stem.split("_", 1)[1].replace("_", " ")


def random_input(shape, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    assert DATA.is_dir(), f"shared data directory {DATA} is missing (set VDLA_SHARED_DATA_DIR)"
    return DATA


@pytest.fixture(scope="session")
def mobilenet_path(data_dir) -> Path:
    assert MOBILENET.is_file(), f"{MOBILENET} is missing"
    return MOBILENET


@pytest.fixture(scope="session")
def photos(data_dir):
    files = sorted(str(p) for p in PHOTOS_DIR.iterdir() if p.suffix.lower() in (".jpeg", ".jpg", ".png"))
    assert len(files) == 32, f"expected the 32 calibration photos in {PHOTOS_DIR}, found {len(files)}"
    return files


@pytest.fixture(scope="session")
def photo_labels(photos):
    return [label_of(p) for p in photos]


@pytest.fixture(scope="session")
def class_names(data_dir):
    with open(CLASSES_FILE) as f:
        names = [line.rstrip("\n") for line in f if line.strip()]
    assert len(names) == 1000
    return names


@pytest.fixture(scope="session")
def resnet18():
    """The zoo ResNet-18 (fp32, seeded weights) at 64x64."""
    return vdla.load("resnet18", image_size=SMALL)


@pytest.fixture(scope="session")
def resnet18_input():
    return random_input((1, 3, SMALL, SMALL), seed=1)


@pytest.fixture(scope="session")
def resnet18_llvm(resnet18):
    return vdla.compile(resnet18, target="llvm")


@pytest.fixture(scope="session")
def resnet18_ref(resnet18):
    return vdla.compile(resnet18, target="ref")


@pytest.fixture(scope="session")
def resnet18_vdla_pynq(resnet18):
    return vdla.compile(resnet18, target="vdla", config="pynq")


@pytest.fixture(scope="session")
def mobilenet(mobilenet_path):
    return vdla.load(mobilenet_path)


@pytest.fixture(scope="session")
def mobilenet_llvm(mobilenet):
    """MobileNetV2 compiled for the host CPU, its code a shared library in the artifact.

    Target llvm has no int8 QLinearConv kernel: the QDQ model runs there
    stripped to fp32 (dequantised weights, no activation quantisers).
    """
    return vdla.compile(mobilenet, target="llvm", strip_qdq=True, library="host")


@pytest.fixture(scope="session")
def mobilenet_llvm_int8(mobilenet):
    """MobileNetV2 as published (int8 QDQ) on the host CPU: generated int8 code."""
    return vdla.compile(mobilenet, target="llvm", library="host")
