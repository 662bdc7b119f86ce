#!/usr/bin/env bash
# A stand-in for yosys in the tests of `vdla explore --yosys`: answers -V like
# yosys 0.23 and, given `-l LOG -s SCRIPT`, writes the `stat -json` report the
# script asks for with fixed cell counts (so the test can check that the
# figures reach the explorer's results), instead of synthesising anything.
set -euo pipefail
if [[ ${1:-} == -V ]]; then echo "Yosys 0.23 (stand-in for tests)"; exit 0; fi
log="" script=""
while (($#)); do
  case "$1" in
    -l) log=$2; shift ;;
    -s) script=$2; shift ;;
  esac
  shift
done
[[ -n $script && -n $log ]] || { echo "stand-in yosys: needs -l LOG -s SCRIPT" >&2; exit 1; }
stat=$(sed -n 's/^tee -q -o \(.*stat\.json\) stat -json$/\1/p' "$script")
[[ -n $stat ]] || { echo "stand-in yosys: the script writes no stat -json report" >&2; exit 1; }
echo "VDLA_PHASE report" > "$log"
cat > "$stat" <<'JSON'
{"design": {"num_cells_by_type": {"LUT6": 30000, "LUT3": 1234, "FDRE": 4321,
  "DSP48E1": 215, "DSP48E2": 215, "RAMB36E1": 100, "RAMB36E2": 100, "RAMB18E1": 5, "RAMB18E2": 5}}}
JSON
echo "stand-in" > "${stat%.json}.txt"
