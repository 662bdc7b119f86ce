#!/usr/bin/env bash
# Installs what is needed, builds, and runs the whole test suite.
#   scripts/test.sh [release|debug-asan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
bash scripts/setup.sh "$preset"
ctest --preset "$preset" -j "$(nproc)"
