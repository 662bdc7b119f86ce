#!/usr/bin/env bash
# Lints the Vitis kernel wrapper of the RTL (scripts/hw/xrt/vdla_xrt_rtl.sv)
# with Verilator over the whole accelerator: every port of vdla_top must be
# connected with its own width, and the wrapper itself must be free of
# Verilator's -Wall warnings. Warnings inside vdla_hw/rtl are that layer's
# business and are not judged here; any error fails.
#
#   xrt_wrapper_lint.sh VERILATOR WRAPPER PKG_FILE RTL_SOURCES...
set -uo pipefail
verilator=$1 wrapper=$2
shift 2
out=$("$verilator" --lint-only -Wall -Wno-fatal --top-module vdla_xrt_rtl "$@" "$wrapper" 2>&1)
rc=$?
bad=$(grep -E "^%Error|^%Warning[^:]*: $wrapper:" <<<"$out")
if ((rc != 0)) || [[ -n $bad ]]; then
  echo "FAIL: verilator lint of $wrapper (exit $rc):"
  echo "${bad:-$out}"
  exit 1
fi
echo "vdla_xrt_rtl lint clean"
