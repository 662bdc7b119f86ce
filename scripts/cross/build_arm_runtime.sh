#!/usr/bin/env bash
# Cross-builds the deployable runtime for ARM boards: libvdla_runtime.so and
# vdla_run_artifact, and prints the size of the stripped library, which is
# what a board needs besides the C++ standard library.
#   scripts/cross/build_arm_runtime.sh [--accel] [armv7|aarch64] [BUILD_DIR]
# --accel: also the accelerator's side (VDLA_RUNTIME_ACCEL: the ISA and config
#   library, fsim and the driver with the Zynq register window), so that the
#   runner takes artifacts of target vdla with --device pynq on a board;
#   prints the size of each library.
# armv7 (default): Cortex-A9 with NEON and hard float (Zynq-7000, Pynq) into
#   build/arm-runtime; needs g++-arm-linux-gnueabihf.
# aarch64: armv8-a (Zynq UltraScale+) into build/arm64-runtime; needs
#   g++-aarch64-linux-gnu.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
accel=OFF
if [[ ${1:-} == --accel ]]; then
  accel=ON
  shift
fi
arch=${1:-armv7}
case $arch in
  armv7) triple=arm-linux-gnueabihf toolchain=armv7-linux-gnueabihf default_build=arm-runtime ;;
  aarch64) triple=aarch64-linux-gnu toolchain=aarch64-linux-gnu default_build=arm64-runtime ;;
  *) echo "build_arm_runtime: unknown architecture '$arch' (armv7 or aarch64)" >&2; exit 2 ;;
esac
[[ $accel == ON ]] && default_build=$default_build-accel
build=${2:-$root/build/$default_build}
if ! command -v $triple-g++ >/dev/null; then
  echo "build_arm_runtime: $triple-g++ not found (apt-get install g++-$triple)" >&2
  exit 1
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVDLA_RUNTIME_ONLY=ON -DVDLA_RUNTIME_ACCEL=$accel \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$toolchain.cmake" >/dev/null
ninja -C "$build" -j "${VDLA_JOBS:-$(nproc)}"

# The size as shipped: a stripped copy (the build keeps its symbols for debugging).
lib=$build/runtime/libvdla_runtime.so
stripped=$build/libvdla_runtime.stripped.so
$triple-strip -o "$stripped" "$lib"
bytes=$(stat -c %s "$stripped")
echo "libvdla_runtime.so ($arch, stripped): $bytes bytes ($((bytes / 1024)) KiB) -> $stripped"
if [[ $accel == ON ]]; then
  total=$bytes
  for lib in driver/libvdla_driver.so simulator/libvdla_sim.so vdla_hw/libvdla_hw.so; do
    $triple-strip -o "$build/stripped.so" "$build/$lib"
    b=$(stat -c %s "$build/stripped.so")
    total=$((total + b))
    echo "$(basename $lib) ($arch, stripped): $b bytes ($((b / 1024)) KiB)"
  done
  rm -f "$build/stripped.so"
  echo "runtime with the accelerator's side: $total bytes ($((total / 1024)) KiB)"
fi
echo "runner: $build/runtime/tools/vdla_run_artifact"
