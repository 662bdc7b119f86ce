#!/usr/bin/env bash
# Configures and builds with a CMake preset (default: release).
#   scripts/build.sh [release|debug-asan]
# VDLA_CMAKE_ARGS adds configure options (scripts/test.sh: -DVDLA_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
# shellcheck disable=SC2086
cmake --preset "$preset" ${VDLA_CMAKE_ARGS:-} >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
