#!/usr/bin/env bash
# Synthesises a spread of configurations with yosys (scripts/hw/resources.sh)
# and writes explore/data/resource_calibration.json, the data the explorer's
# resource model is fitted to. A long run (5-40 minutes per config on one
# core); points already in the data file with the same config are kept unless
# --redo is given, so an interrupted run resumes.
#
#   scripts/hw/calibrate_resources.sh [--redo] [CONFIG...]
#
# Default configs: the shipped ones (tiny, pynq, pynq-classic, ultra96,
# zcu104) and those in scripts/hw/calibration/. Configs given on the command
# line are measured in that order; several runs may share the data file (one
# per core). Afterwards rebuild, and `vdla explore --calibration` prints the
# model's error on every point.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DATA=$ROOT/explore/data/resource_calibration.json
redo=0
configs=()
for a in "$@"; do
  case "$a" in
    --redo) redo=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) configs+=("$a") ;;
  esac
done
if ((${#configs[@]} == 0)); then
  configs=(tiny pynq pynq-classic ultra96 zcu104 "$ROOT"/scripts/hw/calibration/*.json)
fi

measured() {  # measured DATA CONFIG_FILE: exit 0 when the data has this exact config
  /usr/bin/python3 -c '
import json, sys
data = json.load(open(sys.argv[1])); cfg = json.load(open(sys.argv[2]))
sys.exit(0 if any(p["config"] == cfg for p in data["points"]) else 1)' "$1" "$2"
}

for c in "${configs[@]}"; do
  if [[ -f $c ]]; then file=$(cd "$(dirname "$c")" && pwd)/$(basename "$c"); else file=$ROOT/vdla_hw/config/$c.json; fi
  [[ -f $file ]] || { echo "calibrate: no config '$c'" >&2; exit 2; }
  name=$(basename "$file" .json)
  if ((!redo)) && measured "$DATA" "$file"; then
    echo "calibrate: $name already measured (--redo to run it again)"
    continue
  fi
  echo "calibrate: $name (yosys; progress below)"
  out=$ROOT/build/resources/$name
  mkdir -p "$out"
  rc=0
  bash "$ROOT/scripts/hw/resources.sh" "$file" --json --out "$out" > "$out/result.json" || rc=$?
  # 0 fits, 1 does not fit: both are measurements; 2 is an error.
  if ((rc == 2)); then echo "calibrate: resources.sh failed for $name" >&2; exit 2; fi
  # Under a lock on the data file: several runs of this script (one per core)
  # may finish points at the same time.
  flock "$DATA" /usr/bin/python3 - "$DATA" "$file" "$out/result.json" <<'EOF'
import json, sys
data_path, cfg_path, result_path = sys.argv[1:]
data = json.load(open(data_path))
cfg = json.load(open(cfg_path))
r = json.load(open(result_path))
point = {"config": cfg,
         "measured": {k.lower(): r["resources"][k]["used"] for k in ("LUT", "FF", "DSP", "BRAM36", "URAM")
                      if k in r["resources"]},
         "yosys": r.get("yosys"),
         "yosys_seconds": r.get("seconds")}
data["points"] = [p for p in data["points"] if p["config"] != cfg] + [point]
with open(data_path, "w") as f:
    json.dump(data, f, indent=1)
    f.write("\n")
print(f"calibrate: {cfg['name']}: {point['measured']}")
EOF
done
