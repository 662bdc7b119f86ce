#!/usr/bin/env bash
# Installs the toolkit from a build tree into a fresh prefix (cmake --install),
# builds tests/package/consumer against it with find_package(vdla CONFIG), and
# runs the consumer, which compiles and runs a model through the installed
# library. Also checks that the installed `vdla` tool runs.
#   consumer_test.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for f in lib/libvdla.so bin/vdla include/vdla/api/version.h lib/cmake/vdla/vdlaConfig.cmake share/vdla/config/pynq.json; do
  [[ -e $work/prefix/$f ]] || { echo "FAIL: the installed tree lacks $f"; exit 1; }
done
"$work/prefix/bin/vdla" config list > /dev/null
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$here/consumer" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
# The consumer finds libvdla.so through the RPATH CMake gives it: the
# installed tree, not this build's.
resolved=$(ldd "$work/build/vdla_consumer" | awk '$1 == "libvdla.so" {print $3}')
if [[ $resolved != "$work/prefix/lib/libvdla.so" ]]; then
  echo "FAIL: the consumer loads libvdla.so from '$resolved', not the installed tree"; exit 1
fi
"$work/build/vdla_consumer"
