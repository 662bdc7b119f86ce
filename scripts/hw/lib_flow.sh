# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154  # globals shared with the sourcing script, as described below
# Helpers shared by the hardware flows of scripts/hw (build_bitstream.sh,
# build_xclbin.sh): sourced, not run. The caller sets FLOW_PROG (the prefix of
# every message), ROOT (the repository), dry_run (0/1) and, for flow_need,
# flow (hls|rtl); flow_die exits 2, as every flow script does for a bad
# argument.

flow_die() { echo "$FLOW_PROG: error: $*" >&2; exit 2; }

# flow_resolve_config ARG: a shipped config name (vdla_hw/config/ARG.json) or
# a path to a config JSON. Sets config_file (absolute) and config (its name).
flow_resolve_config() {
  if [[ -f $1 ]]; then
    config_file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  elif [[ -f $ROOT/vdla_hw/config/$1.json ]]; then
    config_file=$ROOT/vdla_hw/config/$1.json
  else
    flow_die "no config '$1' (shipped: $(cd "$ROOT/vdla_hw/config" && echo *.json | sed 's/\.json//g'))"
  fi
  config=$(basename "$config_file" .json)
}

# flow_read_target: board, part and clock_mhz from the target of config_file,
# and the part checked to be a Zynq (the only block designs the flows build).
flow_read_target() {
  read -r board part clock_mhz < <(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["target"]
print(t["board"], t["part"], t["clock_mhz"])' "$config_file") ||
    flow_die "$config_file: cannot read target.board/part/clock_mhz"
  case $part in
    xc7z*|xczu*) ;;
    *) flow_die "$config_file: part '$part' is not a Zynq-7000 (xc7z*) or Zynq UltraScale+ (xczu*) device" ;;
  esac
}

# flow_params_dir BUILD_DIR: the generated parameters of config (vdla_params.h
# for HLS, vdla_pkg.sv for the RTL), which CMake's vdla_hw_params writes.
# Sets params_dir.
flow_params_dir() {
  params_dir=$1/generated/vdla_hw/$config
  [[ -f $params_dir/vdla_params.h && -f $params_dir/vdla_pkg.sv ]] ||
    flow_die "no generated parameters in $params_dir (run: ninja -C $1 vdla_hw_params)"
}

# flow_need TOOL "PRODUCT": stop with exit 3 and how to get it when TOOL is
# not on PATH; a dry run notes it and goes on (it only prints commands).
flow_need() {
  command -v "$1" >/dev/null && return
  ((dry_run)) && { echo "$FLOW_PROG: note: $1 not found (dry run continues)" >&2; return; }
  echo "$FLOW_PROG: $1 not found on PATH: the $flow flow needs AMD $2." >&2
  echo "$FLOW_PROG: install it (free for these parts), run 'source <install>/settings64.sh', and retry." >&2
  exit 3
}

# flow_run CMD...: echo the command, run it unless a dry run; a failing tool
# exits 1 and points at out_dir, where the tools leave their logs.
flow_run() {
  echo "+ $*" >&2
  ((dry_run)) || "$@" || { echo "$FLOW_PROG: '$1' failed (logs in $out_dir)" >&2; exit 1; }
}

# flow_unzip_hls_ip ZIP DIR: the IP catalog zip that hls.tcl exports, unpacked
# into DIR (Vivado and package_xo read an IP directory, not a zip).
flow_unzip_hls_ip() {
  rm -rf "$2" && mkdir -p "$2" && (cd "$2" && python3 -m zipfile -e "$1" .)
}
