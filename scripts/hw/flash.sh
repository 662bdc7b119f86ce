#!/usr/bin/env bash
# Loads a VDLA bitstream onto a Pynq/Zynq board over SSH and runs the
# accelerator selftest there.
#
#   scripts/hw/flash.sh --board HOST --config CONFIG [--user USER] [--bit FILE]
#                       [--method fpga-manager|pynq] [--remote-dir DIR] [--dry-run]
#
# Copies FILE (default build/bitstream/<config>-hls/vdla_<config>.bit) and the
# .hwh beside it to HOST:DIR (default /home/USER/vdla), loads it with the
# Linux FPGA manager (fpgautil, or /sys/class/fpga_manager) or through PYNQ's
# Overlay, then runs `vdla selftest --device pynq --config CONFIG` on the
# board (the vdla binary must be on the board's PATH: see docs/pynq.md).
# Exit status: 0 loaded and selftest passed, 1 a step failed, 2 bad arguments.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() { echo "flash: error: $*" >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
host="" config="" user=xilinx bit="" method=fpga-manager remote_dir="" dry_run=0
while (($#)); do
  case "$1" in
    --board) shift; (($#)) || usage; host=$1 ;;
    --config) shift; (($#)) || usage; config=$1 ;;
    --user) shift; (($#)) || usage; user=$1 ;;
    --bit) shift; (($#)) || usage; bit=$1 ;;
    --method) shift; (($#)) || usage; method=$1 ;;
    --remote-dir) shift; (($#)) || usage; remote_dir=$1 ;;
    --dry-run) dry_run=1 ;;
    -h|--help) usage ;;
    *) echo "flash: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
[[ -n $host ]] || die "--board HOST is required (the board's host name or IP address)"
[[ -n $config ]] || die "--config is required (the config the bitstream was built for, e.g. pynq)"
[[ $method == fpga-manager || $method == pynq ]] || die "--method must be fpga-manager or pynq, got '$method'"
bit=${bit:-$ROOT/build/bitstream/$config-hls/vdla_$config.bit}
hwh=${bit%.bit}.hwh
remote_dir=${remote_dir:-/home/$user/vdla}
if ((!dry_run)); then
  [[ -f $bit ]] || die "no bitstream $bit (build it: scripts/hw/build_bitstream.sh --config $config --flow hls)"
  [[ -f $hwh ]] || die "no hardware handoff $hwh beside the bitstream"
  command -v ssh >/dev/null && command -v scp >/dev/null || die "ssh/scp not found (apt-get install openssh-client)"
fi

target=$user@$host
# BatchMode: fail at once instead of waiting for a password; ConnectTimeout: never hang on a dead board.
ssh_opts=(-o BatchMode=yes -o ConnectTimeout=10)
run() {
  echo "+ $*" >&2
  ((dry_run)) || "$@" || { echo "flash: step failed: $*" >&2; exit 1; }
}
name=$(basename "$bit" .bit)
run ssh "${ssh_opts[@]}" "$target" "mkdir -p '$remote_dir'"
run scp "${ssh_opts[@]}" "$bit" "$hwh" "$target:$remote_dir/"
if [[ $method == pynq ]]; then
  # PYNQ loads the bitstream and reads the .hwh of the same name beside it.
  run ssh "${ssh_opts[@]}" "$target" "sudo -E python3 -c \"from pynq import Overlay; Overlay('$remote_dir/$name.bit')\""
else
  run ssh "${ssh_opts[@]}" "$target" "if command -v fpgautil >/dev/null; then sudo fpgautil -b '$remote_dir/$name.bit'; else \
sudo cp '$remote_dir/$name.bit' /lib/firmware/ && echo 0 | sudo tee /sys/class/fpga_manager/fpga0/flags >/dev/null && \
echo '$name.bit' | sudo tee /sys/class/fpga_manager/fpga0/firmware >/dev/null && \
grep -q operating /sys/class/fpga_manager/fpga0/state; fi"
fi
run ssh "${ssh_opts[@]}" "$target" "sudo vdla selftest --device pynq --config '$config'"
((dry_run)) || echo "flash: $name loaded on $host and the selftest passed"
