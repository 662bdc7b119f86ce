#!/usr/bin/env bash
# Installs what is needed, builds, and runs the whole test suite.
#   scripts/test.sh [release|debug-asan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
# Warnings in the project's code fail the build here.
export VDLA_CMAKE_ARGS="${VDLA_CMAKE_ARGS:-} -DVDLA_WERROR=ON"
bash scripts/setup.sh "$preset"
bash scripts/setup_python.sh
# The model tests compare against onnxruntime; a missing onnxruntime must fail
# them rather than skip them silently.
export VDLA_REQUIRE_ORT=1
ctest --preset "$preset" -j "$(nproc)"
