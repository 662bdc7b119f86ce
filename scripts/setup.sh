#!/usr/bin/env bash
# Installs every Debian package the project needs (skipping those already
# present) and builds the release configuration. Idempotent; run as root on
# Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."

# Build tools and the libraries every layer uses.
PACKAGES=(
  build-essential cmake ninja-build pkg-config git python3 clang-format
  libboost-program-options-dev nlohmann-json3-dev
  libgtest-dev googletest
  # CPU back end (target llvm): LLVM 14 and ld.lld to link generated shared libraries.
  llvm-14-dev lld-14
  # oneDNN, the per-layer baseline of the CPU back end (benchmarks/llvm_conv_layers_bench).
  libdnnl-dev
  # Cycle-accurate simulator and resource reports (vdla_hw/rtl, simulator/cycle).
  verilator libsystemc-dev yosys
  # Compiler frontends and tests against outside references.
  libonnx-dev libprotobuf-dev protobuf-compiler libstb-dev
  python3-onnx python3-numpy python3-torch python3-torchvision
  # Runtime image decoding: libjpeg (JPEG, the library PIL uses; stb_image above for PNG).
  libjpeg-dev
  # Signed artifacts: Ed25519 signatures (vdla keygen, compile --sign, run --trusted-keys).
  libsodium-dev
  # libFuzzer targets; clang also compiles the cycle simulator's Verilated code (VDLA_CYCLE_SIM_CLANG).
  clang-14 libclang-rt-14-dev
  # Checks of the Vivado/Vitis HLS Tcl flows (scripts/hw) without the vendor tools.
  tcl
  # The runtime cross-built for armv7/aarch64 boards and its test under qemu (tests/runtime/arm).
  g++-arm-linux-gnueabihf g++-aarch64-linux-gnu qemu-user
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#PACKAGES[@]} packages present"
fi

bash scripts/build.sh "$@"
