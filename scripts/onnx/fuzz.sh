#!/usr/bin/env bash
# Fuzzes the ONNX importer with libFuzzer for a bounded time.
#
#   scripts/onnx/fuzz.sh [SECONDS=60] [BUILD_DIR=build/fuzz]
#
# Configures BUILD_DIR with clang++-14, AddressSanitizer and UBSan on every
# library the fuzzer links, builds onnx_import_fuzzer, seeds a corpus with
# small valid models (gen_fuzz_corpus.py), ONNX node-test models and the inputs
# of past crashes (compiler/frontend/onnx/fuzz/regressions/), and runs.
# Exits non-zero on a crash, a sanitizer report or an exception other than
# OnnxImportError; the reproducer is left in BUILD_DIR/artifacts/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SECONDS_TO_RUN="${1:-60}"
BUILD_DIR="$(realpath -m "${2:-$ROOT/build/fuzz}")"
PYTHON=/usr/bin/python3  # Debian's python3-onnx
JOBS="${VDLA_FUZZ_JOBS:-2}"

command -v clang++-14 >/dev/null || { echo "fuzz.sh: clang++-14 is missing (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }
SAN="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"

cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_CXX_FLAGS="$SAN" -DCMAKE_C_FLAGS="$SAN" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DVDLA_FUZZ=ON -DVDLA_BUILD_TESTS=OFF -DVDLA_NATIVE=OFF \
  -DVDLA_WITH_SYSTEMC=OFF -DVDLA_WITH_CUDA=OFF -DVDLA_WITH_XRT=OFF >"$BUILD_DIR.configure.log" 2>&1 \
  || { cat "$BUILD_DIR.configure.log" >&2; exit 1; }
cmake --build "$BUILD_DIR" -j"$JOBS" --target onnx_import_fuzzer

CORPUS="$BUILD_DIR/corpus"
SEEDS="$BUILD_DIR/seeds"
mkdir -p "$CORPUS" "$BUILD_DIR/artifacts"
rm -rf "$SEEDS"
"$PYTHON" "$ROOT/scripts/onnx/gen_fuzz_corpus.py" "$SEEDS/generated" >/dev/null
"$PYTHON" "$ROOT/scripts/onnx/gen_node_tests.py" "$BUILD_DIR/node_tests" >/dev/null
mkdir -p "$SEEDS/node_tests"
for m in "$BUILD_DIR"/node_tests/*/model.onnx; do cp "$m" "$SEEDS/node_tests/$(basename "$(dirname "$m")").onnx"; done

# The importer refuses tensors above 2 GiB without allocating them; the RSS
# limit catches any path that would.
exec "$BUILD_DIR/compiler/frontend/onnx/fuzz/onnx_import_fuzzer" \
  -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=3072 -timeout=20 -max_len=65536 \
  -artifact_prefix="$BUILD_DIR/artifacts/" -print_final_stats=1 \
  "$CORPUS" "$SEEDS/generated" "$SEEDS/node_tests" "$ROOT/compiler/frontend/onnx/fuzz/regressions"
