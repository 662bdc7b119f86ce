#!/usr/bin/env bash
# The compiler's cost model against the cycle-accurate simulator: for every
# network and config, `vdla profile --device cycle` measures each offloaded
# layer and reports the cost model's estimate beside it; this prints the
# total error per network and config (the explorer steers by the estimate).
#
#   benchmarks/cost_model_accuracy.sh [--configs "pynq ultra96 zcu104"] [--networks "..."] [--build DIR]
#
# Networks are zoo names or ONNX files (default: resnet18, resnet50 and the
# int8 MobileNetV2 of ../shared/data). Configs without a built-in model are
# built on first use (a minute each) and cached.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$ROOT/build/release
configs="pynq ultra96 zcu104"
mnv2=$ROOT/../shared/data/models/mobilenetv2-imagenet-int8-qdq.onnx
networks="resnet18 resnet50 $mnv2"
while (($#)); do
  case "$1" in
    --configs) configs=$2; shift ;;
    --networks) networks=$2; shift ;;
    --build) build=$2; shift ;;
    *) echo "usage: $0 [--configs LIST] [--networks LIST] [--build DIR]" >&2; exit 2 ;;
  esac
  shift
done
vdla=$build/tools/vdla/vdla
[[ -x $vdla ]] || { echo "cost_model_accuracy: $vdla not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-10s %-30s %12s %12s %8s %8s %9s\n' config network measured estimated error "MACs/id" sim_s
for cfg in $configs; do
  for net in $networks; do
    [[ $net == *.onnx && ! -f $net ]] && { echo "cost_model_accuracy: $net missing" >&2; exit 2; }
    start=$(date +%s.%N)
    "$vdla" profile "$net" --device cycle --config "$cfg" --latency-hiding on --json > "$tmp/p.json"
    end=$(date +%s.%N)
    /usr/bin/python3 - "$tmp/p.json" "$cfg" "$(basename "$net" .onnx)" "$start" "$end" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
t = p["total_latency_hiding_on"]
print(f"{sys.argv[2]:<10} {sys.argv[3][:30]:<30} {t['cycles']:>12.0f} {t['estimated_cycles']:>12.0f} "
      f"{100 * t['cost_model_error']:>+7.1f}% {100 * t['ideal_cycles'] / t['cycles']:>7.1f}% "
      f"{float(sys.argv[5]) - float(sys.argv[4]):>9.1f}")
PY
  done
done
