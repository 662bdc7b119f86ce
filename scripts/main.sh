#!/usr/bin/env bash
# The main job: installs what is needed, builds, then
#  1. runs the built-in self-test programs on the functional simulator for every
#     shipped hardware configuration and on the cycle-accurate RTL simulator
#     (pynq), each checked against a plain C++ reference;
#  2. quantises the built-in ResNet-18 (seeded weights, no file needed) to int8,
#     compiles it for the accelerator with latency hiding on and off, runs the
#     whole network on the cycle-accurate simulator, and prints the
#     classification and the per-layer cycles and GEMM utilisation of both
#     modes, with a bar chart. A build without the cycle-accurate simulator
#     (Verilator or SystemC missing) stops with an error rather than quietly
#     running something else.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
vdla=build/release/tools/vdla/vdla
for config in pynq ultra96 zcu104 tiny; do
  "$vdla" selftest --device fsim --config "$config"
  echo
done
if ! "$vdla" selftest --help | grep -q cycle; then
  echo "main: this build has no cycle-accurate simulator (device 'cycle'); scripts/setup.sh installs" \
    "verilator and libsystemc-dev, so see the CMake output of build/release for why it was left out" >&2
  exit 1
fi
"$vdla" selftest --device cycle --config pynq --trace build/release/selftest_pynq_trace.json
echo "timeline of the last program: build/release/selftest_pynq_trace.json (open in ui.perfetto.dev)"
echo
"$vdla" profile resnet18 --device cycle --latency-hiding on,off --svg build/release/resnet18_profile.svg
