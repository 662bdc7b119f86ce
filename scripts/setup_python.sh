#!/usr/bin/env bash
# Installs the PyPI packages the outside-reference tests use (onnxruntime) into
# the `python3` on PATH. Debian's own python3 (/usr/bin/python3, with
# python3-onnx and python3-torch from apt) is left alone.
set -euo pipefail
if python3 -c 'import onnxruntime, numpy' 2>/dev/null; then
  echo "setup_python: onnxruntime present"
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-pip
fi
echo "setup_python: installing onnxruntime and numpy from PyPI"
python3 -m pip install --quiet onnxruntime numpy 2>/dev/null ||
  python3 -m pip install --quiet --break-system-packages onnxruntime numpy
