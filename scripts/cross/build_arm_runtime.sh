#!/usr/bin/env bash
# Cross-builds the deployable runtime for ARM boards: libvdla_runtime.so and
# vdla_run_artifact, and prints the size of the stripped library, which is
# what a board needs besides the C++ standard library.
#   scripts/cross/build_arm_runtime.sh [armv7|aarch64] [BUILD_DIR]
# armv7 (default): Cortex-A9 with NEON and hard float (Zynq-7000, Pynq) into
#   build/arm-runtime; needs g++-arm-linux-gnueabihf.
# aarch64: armv8-a (Zynq UltraScale+) into build/arm64-runtime; needs
#   g++-aarch64-linux-gnu.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
arch=${1:-armv7}
case $arch in
  armv7) triple=arm-linux-gnueabihf toolchain=armv7-linux-gnueabihf default_build=arm-runtime ;;
  aarch64) triple=aarch64-linux-gnu toolchain=aarch64-linux-gnu default_build=arm64-runtime ;;
  *) echo "build_arm_runtime: unknown architecture '$arch' (armv7 or aarch64)" >&2; exit 2 ;;
esac
build=${2:-$root/build/$default_build}
if ! command -v $triple-g++ >/dev/null; then
  echo "build_arm_runtime: $triple-g++ not found (apt-get install g++-$triple)" >&2
  exit 1
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVDLA_RUNTIME_ONLY=ON \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$toolchain.cmake" >/dev/null
ninja -C "$build" -j "${VDLA_JOBS:-$(nproc)}"

# The size as shipped: a stripped copy (the build keeps its symbols for debugging).
lib=$build/runtime/libvdla_runtime.so
stripped=$build/libvdla_runtime.stripped.so
$triple-strip -o "$stripped" "$lib"
bytes=$(stat -c %s "$stripped")
echo "libvdla_runtime.so ($arch, stripped): $bytes bytes ($((bytes / 1024)) KiB) -> $stripped"
echo "runner: $build/runtime/tools/vdla_run_artifact"
