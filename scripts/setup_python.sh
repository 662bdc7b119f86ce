#!/usr/bin/env bash
# The Python side, for the `python3` on PATH: the PyPI packages the package
# build (nanobind, scikit-build-core) and the tests (pytest, onnxruntime, Ray,
# NumPy) need, then the `vdla` package itself, built against the release
# build (scripts/install_python_package.sh). Debian's own python3
# (/usr/bin/python3, with python3-onnx and python3-torch from apt) is left alone.
#   scripts/setup_python.sh [release|debug-asan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
PYPI=(numpy onnxruntime pytest ray nanobind scikit-build-core)
if python3 -c 'import numpy, onnxruntime, pytest, ray, nanobind, scikit_build_core' 2>/dev/null; then
  echo "setup_python: PyPI packages present"
else
  if ! python3 -m pip --version >/dev/null 2>&1; then
    if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-pip
  fi
  echo "setup_python: installing ${PYPI[*]} from PyPI"
  python3 -m pip install --quiet "${PYPI[@]}" 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages "${PYPI[@]}"
fi
bash scripts/install_python_package.sh "build/$preset"
