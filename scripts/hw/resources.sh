#!/usr/bin/env bash
# FPGA resource estimate of the VDLA RTL for one hardware config: runs yosys
# `synth_xilinx` for the config's FPGA part and prints LUT, FF, DSP and BRAM
# use against the part's capacity.
#
#   scripts/hw/resources.sh CONFIG [--json] [--build-dir DIR] [--out DIR]
#                                  [--timeout SEC] [--quiet]
#
# CONFIG is a shipped config name (tiny, pynq, ultra96, zcu104) or a path to a
# config JSON file. The config's target.part selects the device and the
# synth_xilinx family (xc7 for Zynq-7000, xcup for Zynq UltraScale+).
#
# The RTL package vdla_pkg.sv comes from <build>/generated/vdla_hw/<config>/
# (build dir: --build-dir, else $VDLA_BUILD_DIR, else build/release); when it
# is missing or stale, or the config is not a shipped one, the script builds
# vdla_hwgen there and generates the package into the output dir. Without any
# configured build dir it configures a private one, build/resources/_hwgen.
#
# Progress (synth_xilinx phase, current pass, elapsed time) goes to stderr;
# the full yosys log, the script and the `stat` reports are written to the
# output dir (default build/resources/<config>/) and the log is named.
#
# Exit status: 0 the design fits the part, 1 it does not fit, 2 error (bad
# arguments, unknown part, yosys failed or timed out).
#
# Counting: LUT = LUT1..LUT6 plus LUTs used as distributed RAM or shift
# registers (RAM64M = 4 LUTs, ...); FF = FDRE/FDSE/FDCE/FDPE (+ latches);
# DSP = DSP48E1 (7-series) or DSP48E2 (UltraScale+); BRAM36 = RAMB36 + RAMB18/2;
# URAM = URAM288 (parts with UltraRAM: the buffers a config places there).
# yosys maps less cleverly than Vivado (LUT counts are typically higher), so
# treat LUT and FF as upper estimates; DSP and BRAM follow inference directly.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

die() { echo "resources: error: $*" >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

config_arg="" json=0 quiet=0 build_dir="${VDLA_BUILD_DIR:-}" out_dir="" timeout_s=7200
while (($#)); do
  case "$1" in
    --json) json=1 ;;
    --quiet|-q) quiet=1 ;;
    --build-dir) shift; (($#)) || usage; build_dir=$1 ;;
    --out) shift; (($#)) || usage; out_dir=$1 ;;
    --timeout) shift; (($#)) || usage; timeout_s=$1 ;;
    -h|--help) usage ;;
    -*) echo "resources: unknown option '$1'" >&2; usage ;;
    *) [[ -z $config_arg ]] || usage; config_arg=$1 ;;
  esac
  shift
done
[[ -n $config_arg ]] || usage
[[ $timeout_s =~ ^[0-9]+$ ]] || die "--timeout wants seconds, got '$timeout_s'"

command -v python3 >/dev/null || die "python3 not found (run scripts/setup.sh)"
YOSYS=${YOSYS:-yosys}
command -v "$YOSYS" >/dev/null || die "yosys not found (run scripts/setup.sh, or set YOSYS=/path/to/yosys)"

T0=$(date +%s)
elapsed() { local s=$(($(date +%s) - T0)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
say() { ((quiet)) || printf '[%7s] %s\n' "$(elapsed)" "$*" >&2; }

# --- Config and part ---------------------------------------------------------
if [[ -f $config_arg ]]; then
  config_file=$(cd "$(dirname "$config_arg")" && pwd)/$(basename "$config_arg")
elif [[ -f $ROOT/vdla_hw/config/$config_arg.json ]]; then
  config_file=$ROOT/vdla_hw/config/$config_arg.json
else
  die "no config '$config_arg' (shipped: $(cd "$ROOT/vdla_hw/config" && echo *.json | sed 's/\.json//g'))"
fi
config_name=$(basename "$config_file" .json)
shipped=0
[[ $config_file == "$ROOT/vdla_hw/config/$config_name.json" ]] && shipped=1

# Device capacities (CLB LUTs, CLB flip-flops, DSP slices, 36Kb block RAMs) from
# vdla_hw/parts/fpga_parts.json, the table the design-space explorer reads too.
read -r board part device family dsp_cell bram36_cell bram18_cell cap_lut cap_ff cap_dsp cap_bram cap_uram uram_bufs < <(
  python3 - "$config_file" "$ROOT/vdla_hw/parts/fpga_parts.json" <<'EOF'
import json, re, sys
cfg = json.load(open(sys.argv[1]))
target = cfg.get("target", {})
board, part = target.get("board", "?"), target.get("part", "")
table = json.load(open(sys.argv[2]))["devices"]
parts = {name: (d["family"], d["dsp_cell"], d["bram36_cell"], d["bram18_cell"], d["lut"], d["ff"], d["dsp"], d["bram36"],
                d["uram"]) for name, d in table.items()}
m = re.match(r"(xc7z\d{3}s?|xczu\d+(?:cg|eg|ev|dr))", part.lower())
if not m or m.group(1) not in parts:
    sys.exit(f"resources: error: part '{part}' of {sys.argv[1]} is not in the capacity table "
             f"(known: {', '.join(sorted(parts))})")
ultraram = cfg.get("ultraram", [])
if ultraram and parts[m.group(1)][8] == 0:
    sys.exit(f"resources: error: {sys.argv[1]} places {', '.join(ultraram)} in UltraRAM, "
             f"but the {m.group(1)} has none")
print(board, part, m.group(1), *parts[m.group(1)], ",".join(ultraram) or "-")
EOF
) || exit 2
[[ -n ${cap_bram:-} ]] || die "cannot read target.part of $config_file"

out_dir=${out_dir:-$ROOT/build/resources/$config_name}
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
log_file=$out_dir/yosys.log
say "config $config_name: board $board, part $part (device $device, synth_xilinx -family $family)"

# --- Generated RTL package -----------------------------------------------------
# Use <build>/generated/vdla_hw/<config>/vdla_pkg.sv when it is there and newer
# than the config (and vdla_hwgen); otherwise run vdla_hwgen into the output
# dir, building it first. With no configured build dir (none given and no
# build/release), a private one (build/resources/_hwgen, cycle simulator off:
# only vdla_hwgen is needed) is configured.
if [[ -z $build_dir ]]; then
  build_dir=$ROOT/build/release
  [[ -f $build_dir/CMakeCache.txt ]] || build_dir=$ROOT/build/resources/_hwgen
fi
[[ $build_dir = /* ]] || build_dir=$PWD/$build_dir
hwgen=$build_dir/vdla_hw/vdla_hwgen
pkg=$build_dir/generated/vdla_hw/$config_name/vdla_pkg.sv

if ((shipped)) && [[ -f $pkg && ! $pkg -ot $config_file ]] && ! [[ -x $hwgen && $pkg -ot $hwgen ]]; then
  :
else
  if [[ ! -f $build_dir/CMakeCache.txt ]]; then
    say "configuring $build_dir for vdla_hwgen (log: $out_dir/cmake.log)"
    cmake -S "$ROOT" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVDLA_WITH_SYSTEMC=OFF \
      -DVDLA_WITH_CUDA=OFF -DVDLA_WITH_XRT=OFF -DVDLA_BUILD_TESTS=OFF >"$out_dir/cmake.log" 2>&1 \
      || die "cmake configure of $build_dir failed, see $out_dir/cmake.log"
  fi
  say "building vdla_hwgen (cmake --build $build_dir --target vdla_hwgen)"
  cmake --build "$build_dir" --target vdla_hwgen >>"$out_dir/cmake.log" 2>&1 \
    || die "building vdla_hwgen failed, see $out_dir/cmake.log"
  pkg=$out_dir/vdla_pkg.sv
  say "generating $pkg (vdla_hwgen)"
  "$hwgen" "$config_file" --sv "$pkg" || die "vdla_hwgen failed for $config_file"
fi
[[ -f $pkg ]] || die "RTL package $pkg was not generated"
say "RTL package $pkg"

# --- yosys script ----------------------------------------------------------------
# RTL sources in the order of vdla_hw/rtl/rtl_files.cmake (the one file list).
mapfile -t rtl < <(sed -n 's|^[[:space:]]*\${VDLA_RTL_DIR}/\([A-Za-z0-9_]*\.sv\).*|\1|p' \
  "$ROOT/vdla_hw/rtl/rtl_files.cmake")
((${#rtl[@]})) || die "no sources found in vdla_hw/rtl/rtl_files.cmake"

# synth_xilinx runs phase by phase (its own labels) so the log shows where it is.
# With buffers in UltraRAM (the config's "ultraram", RTL attribute
# ram_style "ultra") synth_xilinx must be allowed to map URAM288s.
uram_flag=""
[[ $uram_bufs == "-" ]] || uram_flag=" -uram"
phases=(begin prepare map_dsp coarse map_memory map_ffram fine map_cells map_ffs map_luts finalize check)
script=$out_dir/synth.ys
{
  echo "# Generated by scripts/hw/resources.sh for config $config_name ($part)."
  printf 'read_verilog -sv %s' "$pkg"
  printf ' \\\n  %s' "${rtl[@]/#/$ROOT/vdla_hw/rtl/}"
  echo
  echo "hierarchy -check -top vdla_top"
  for ((i = 0; i < ${#phases[@]}; i++)); do
    next=${phases[i + 1]:-}
    echo "log VDLA_PHASE ${phases[i]}"
    echo "synth_xilinx -flatten -top vdla_top -family $family$uram_flag -run ${phases[i]}:$next"
  done
  echo "log VDLA_PHASE report"
  echo "tee -q -o $out_dir/stat.json stat -json"
  echo "tee -q -o $out_dir/stat.txt stat"
} >"$script"

yosys_version=$("$YOSYS" -V 2>/dev/null | head -1)
[[ $yosys_version == "Yosys 0.23"* ]] || say "warning: expected yosys 0.23, found '$yosys_version'"
rm -f "$out_dir/stat.json" "$out_dir/stat.txt" "$log_file"
say "running $yosys_version synth_xilinx (log: $log_file)"

timeout "$timeout_s" "$YOSYS" -q -l "$log_file" -s "$script" >"$out_dir/yosys.stdout" 2>&1 &
ypid=$!

# Follow the log: print each synth_xilinx phase as it starts, and the pass that
# is running when one takes long (after 20 s, then every minute).
phase="" pass="" pass_t=$(date +%s) next_note=20
while kill -0 "$ypid" 2>/dev/null; do
  sleep 2
  [[ -f $log_file ]] || continue
  now=$(date +%s)
  new_phase=$(grep -a '^VDLA_PHASE ' "$log_file" | tail -1 | cut -d' ' -f2) || true
  new_pass=$(grep -aE '^[0-9]+\.[0-9]+\. Executing ' "$log_file" | tail -1 \
    | sed -E 's/^[0-9.]+ Executing //; s/ pass \(.*//; s/\.$//') || true
  if [[ -n $new_phase && $new_phase != "$phase" ]]; then
    phase=$new_phase pass_t=$now next_note=20
    say "synth_xilinx phase $phase"
  fi
  if [[ $new_pass != "$pass" ]]; then
    pass=$new_pass pass_t=$now next_note=20
  elif [[ -n $pass ]] && ((now - pass_t >= next_note)); then
    say "  $pass pass running for $(((now - pass_t) / 60))m$(printf '%02d' $(((now - pass_t) % 60)))s"
    next_note=$((next_note < 60 ? 60 : next_note + 60))
  fi
done
rc=0
wait "$ypid" || rc=$?
if ((rc == 124)); then
  die "yosys timed out after ${timeout_s}s (phase ${phase:-?}, pass ${pass:-?}); log: $log_file"
elif ((rc != 0)) || [[ ! -s $out_dir/stat.json ]]; then
  grep -aE 'ERROR|Error' "$log_file" | head -5 >&2 || true
  die "yosys failed (exit $rc); log: $log_file"
fi
say "synthesis done; log: $log_file"

# --- Report ----------------------------------------------------------------------
secs=$(($(date +%s) - T0))
rc=0
(python3 - "$out_dir/stat.json" "$json" "$config_name" "$board" "$part" "$device" "$family" \
  "$dsp_cell" "$bram36_cell" "$bram18_cell" "$cap_lut" "$cap_ff" "$cap_dsp" "$cap_bram" "$cap_uram" \
  "$log_file" "$yosys_version" "$secs" <<'EOF'
import json, sys
(stat_file, as_json, config, board, part, device, family, dsp_cell, b36, b18,
 cap_lut, cap_ff, cap_dsp, cap_bram, cap_uram, log_file, version, secs) = sys.argv[1:]
stat = json.load(open(stat_file))
mods = stat.get("modules", {})
cells = (stat.get("design") or mods.get("\\vdla_top") or next(iter(mods.values())))["num_cells_by_type"]
n = lambda names: sum(cells.get(c, 0) for c in names)

logic_luts = n(["LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"])
# LUTs per distributed-RAM / shift-register primitive.
lutram_luts = {"RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2, "RAM256X1S": 4, "RAM512X1S": 8,
               "RAM32X1D": 2, "RAM64X1D": 2, "RAM128X1D": 4, "RAM256X1D": 8,
               "RAM32M": 4, "RAM64M": 4, "RAM32M16": 8, "RAM64M8": 8,
               "RAM32X16DR8": 8, "RAM64X8SW": 8}
srl_luts = {"SRL16E": 1, "SRLC16E": 1, "SRLC32E": 1}
mem_luts = sum(cells.get(c, 0) * k for c, k in lutram_luts.items())
srl = sum(cells.get(c, 0) * k for c, k in srl_luts.items())
ffs = n(["FDRE", "FDSE", "FDCE", "FDPE", "FDRE_1", "FDSE_1", "FDCE_1", "FDPE_1", "LDCE", "LDPE"])
dsps = n([dsp_cell])
ramb36, ramb18 = cells.get(b36, 0), cells.get(b18, 0)
bram = ramb36 + ramb18 / 2

def row(used, cap):
    cap = int(cap)
    return {"used": used, "available": cap, "percent": round(100.0 * used / cap, 1)}

res = {
    "LUT": dict(row(logic_luts + mem_luts + srl, cap_lut), logic=logic_luts, memory=mem_luts, srl=srl),
    "FF": row(ffs, cap_ff),
    "DSP": dict(row(dsps, cap_dsp), cell=dsp_cell),
    "BRAM36": dict(row(bram, cap_bram), **{b36: ramb36, b18: ramb18}),
}
if int(cap_uram) > 0:
    res["URAM"] = dict(row(cells.get("URAM288", 0), cap_uram), cell="URAM288")
fits = all(r["used"] <= r["available"] for r in res.values())
report = {"config": config, "board": board, "part": part, "device": device,
          "synth": f"synth_xilinx -flatten -family {family}" + (" -uram" if "URAM" in res else ""), "yosys": version,
          "log": log_file, "seconds": int(secs), "fits": fits, "resources": res,
          "cells": dict(sorted(cells.items()))}
with open(stat_file.replace("stat.json", "report.json"), "w") as f:
    json.dump(report, f, indent=2)
if as_json == "1":
    print(json.dumps(report, indent=2))
else:
    print(f"{config}: {part} ({board}), {version}, synth_xilinx -family {family}, {int(secs)} s")
    print(f"{'resource':<8} {'used':>9} {'available':>10} {'use':>7}")
    for name, r in res.items():
        used = f"{r['used']:g}" if isinstance(r["used"], float) else str(r["used"])
        print(f"{name:<8} {used:>9} {r['available']:>10} {r['percent']:>6.1f}%")
    print(f"  LUT: {logic_luts} logic + {mem_luts} distributed RAM + {srl} shift register; "
          f"BRAM36: {ramb36} {b36} + {ramb18} {b18}; DSP cell {dsp_cell}")
    print(f"  {'fits' if fits else 'DOES NOT FIT'} the {device}; yosys log: {log_file}")
sys.exit(0 if fits else 3)
EOF
) || rc=$?
# 3: does not fit; anything else from python is a failure of the report.
((rc != 3)) || exit 1
((rc == 0)) || die "report failed (python exit $rc)"
