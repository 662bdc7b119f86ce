#!/usr/bin/env bash
# Builds the bitstream (.bit) and hardware handoff (.hwh) of a VDLA instance.
#
#   scripts/hw/build_bitstream.sh --config CONFIG --flow hls|rtl [--port hp|acp]
#                                 [--build-dir DIR] [--out DIR] [--dry-run]
#
# CONFIG is a shipped config (pynq, ultra96, zcu104, ...) or a config JSON; its
# target (board, part, clock) selects the Zynq-7000 or Zynq UltraScale+ block
# design. --flow hls synthesises vdla_hw/hls with Vitis HLS (scripts/hw/hls.tcl)
# and exports it as IP; --flow rtl packages vdla_hw/rtl (rtl_package.tcl).
# Both then run vivado_bd.tcl: block design, implementation, bitstream. The
# HLS flow first runs the C simulation of vdla_hw/hls/tb/vdla_top_tb.cpp (a
# GEMM/ALU program through the register window, checked against a plain loop).
# The generated parameters come from <build>/generated/vdla_hw/<config>
# (--build-dir, else $VDLA_BUILD_DIR, else build/release; build the target
# vdla_hw_params there first). --dry-run prints the tool commands only.
#
# Exit status: 0 written, 1 a tool failed, 2 bad arguments, 3 Vivado or
# Vitis HLS is not installed (the message says which and how to get it).
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FLOW_PROG=build_bitstream
# shellcheck source=scripts/hw/lib_flow.sh
source "$ROOT/scripts/hw/lib_flow.sh"
die() { flow_die "$@"; }
config_arg="" flow="" port=hp build_dir="${VDLA_BUILD_DIR:-$ROOT/build/release}" out_dir="" dry_run=0
while (($#)); do
  case "$1" in
    --config) shift; (($#)) || usage; config_arg=$1 ;;
    --flow) shift; (($#)) || usage; flow=$1 ;;
    --port) shift; (($#)) || usage; port=$1 ;;
    --build-dir) shift; (($#)) || usage; build_dir=$1 ;;
    --out) shift; (($#)) || usage; out_dir=$1 ;;
    --dry-run) dry_run=1 ;;
    -h|--help) usage ;;
    *) echo "build_bitstream: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
[[ -n $config_arg ]] || die "--config is required (e.g. --config pynq)"
[[ $flow == hls || $flow == rtl ]] || die "--flow must be hls or rtl, got '${flow}'"
[[ $port == hp || $port == acp ]] || die "--port must be hp or acp, got '$port'"

flow_resolve_config "$config_arg"
flow_read_target
flow_params_dir "$build_dir"
out_dir=${out_dir:-$ROOT/build/bitstream/$config-$flow}

# The vendor tools: stop clearly when they are absent.
flow_need vivado "Vivado 2023.1 or newer"
[[ $flow == rtl ]] || flow_need vitis_hls "Vitis HLS 2023.1 or newer"

run() { flow_run "$@"; }
mkdir -p "$out_dir"
if [[ $flow == hls ]]; then
  run vitis_hls -f "$ROOT/scripts/hw/hls.tcl" -tclargs "$config" "$part" "$clock_mhz" "$ROOT/vdla_hw/hls" \
    "$params_dir" "$ROOT/vdla_hw/include" "$out_dir" "$ROOT/vdla_hw/hls/tb/vdla_top_tb.cpp"
  ((dry_run)) || flow_unzip_hls_ip "$out_dir/ip/vdla_hls_$config.zip" "$out_dir/ip/hls_ip"
  ip_repo=$out_dir/ip/hls_ip slave_if=s_axi_control master_if=m_axi_data
else
  run vivado -mode batch -nojournal -source "$ROOT/scripts/hw/rtl_package.tcl" -tclargs "$config" "$part" \
    "$params_dir/vdla_pkg.sv" "$ROOT/vdla_hw/rtl" "$out_dir"
  ip_repo=$out_dir/ip/vdla_rtl_$config slave_if=s_axil master_if=m_axi
fi
run vivado -mode batch -nojournal -source "$ROOT/scripts/hw/vivado_bd.tcl" -tclargs "$config" "$part" "$board" \
  "$clock_mhz" "$ip_repo" vdla_top "$slave_if" "$master_if" "$out_dir" "$port"
((dry_run)) || echo "build_bitstream: $out_dir/vdla_$config.bit and vdla_$config.hwh ($flow flow, $board)"
