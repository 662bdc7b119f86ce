#!/usr/bin/env bash
# The main job: installs what is needed, builds, and runs the built-in
# self-test programs on the functional simulator for every shipped hardware
# configuration, each checked against a plain C++ reference.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
vdla=build/release/tools/vdla/vdla
for config in pynq ultra96 zcu104 tiny; do
  "$vdla" selftest --device fsim --config "$config"
  echo
done
