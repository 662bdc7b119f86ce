#!/usr/bin/env bash
# The main job: installs what is needed, builds, then
#  1. runs the built-in self-test programs on the functional simulator for every
#     shipped hardware configuration and on the cycle-accurate RTL simulator
#     (pynq), each checked against a plain C++ reference;
#  2. compiles the built-in ResNet-18 (seeded weights, no file needed) and runs
#     it on a deterministic input through the runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
vdla=build/release/tools/vdla/vdla
for config in pynq ultra96 zcu104 tiny; do
  "$vdla" selftest --device fsim --config "$config"
  echo
done
if "$vdla" selftest --help | grep -q cycle; then
  "$vdla" selftest --device cycle --config pynq --trace build/release/selftest_pynq_trace.json
  echo "timeline of the last program: build/release/selftest_pynq_trace.json (open in ui.perfetto.dev)"
  echo
fi
"$vdla" compile resnet18 -o build/release/resnet18.vdla
"$vdla" run build/release/resnet18.vdla --top 5
