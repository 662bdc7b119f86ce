#!/usr/bin/env bash
# Installs the toolkit's C++ package from a build tree into BUILD/install
# (cmake --install) and builds and installs the Python package `vdla` against
# it into the python3 on PATH (pip install . : python/CMakeLists.txt, which
# compiles only the bindings and copies libvdla.so into the package).
# Incremental: a second run copies and compiles only what changed.
#   scripts/install_python_package.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build/release}" && pwd)
cmake --install "$build" --prefix "$build/install" > /dev/null
pip_args=(--quiet --no-build-isolation --no-deps)
export CMAKE_PREFIX_PATH="$build/install"
if ! python3 -m pip install "${pip_args[@]}" . 2> "$build/python-install.err"; then
  if grep -q "externally-managed-environment" "$build/python-install.err"; then
    python3 -m pip install "${pip_args[@]}" --break-system-packages .
  else
    cat "$build/python-install.err" >&2
    exit 1
  fi
fi
python3 -c 'import vdla; print("install_python_package: vdla", vdla.__version__, "from", vdla.__file__)'
