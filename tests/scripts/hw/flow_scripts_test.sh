#!/usr/bin/env bash
# build_bitstream.sh and flash.sh without vendor tools or a board:
#  * missing Vivado / Vitis HLS stops with exit 3 and a message naming the tool;
#  * with stand-in vivado/vitis_hls/ssh/scp on PATH that record their command
#    lines, the scripts call the tools with the config's part, board and
#    clock, the right Tcl scripts and flow, and the board commands (copy,
#    FPGA manager or PYNQ load, selftest);
#  * bad arguments exit 2, a failing board step exits 1, nothing waits.
#
#   flow_scripts_test.sh REPO_ROOT SCRATCH_DIR
set -uo pipefail
ROOT=$1
TMP=$2
rm -rf "$TMP" && mkdir -p "$TMP/bin" "$TMP/build/generated/vdla_hw/pynq" "$TMP/build/generated/vdla_hw/zcu104"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
for c in pynq zcu104; do
  touch "$TMP/build/generated/vdla_hw/$c/vdla_params.h" "$TMP/build/generated/vdla_hw/$c/vdla_pkg.sv"
done
BUILD=$ROOT/scripts/hw/build_bitstream.sh
FLASH=$ROOT/scripts/hw/flash.sh
# PATH with the basic tools only (no vendor tools, whatever the host has).
BASE_PATH=/usr/bin:/bin

# expect RC REGEX -- command...: exit status and a line of stdout+stderr.
expect() {
  local rc=$1 regex=$2
  shift 3
  local out got
  out=$("$@" 2>&1)
  got=$?
  [[ $got == "$rc" ]] || fail "'$*' exited $got, expected $rc; output: $out"
  grep -Eq -- "$regex" <<<"$out" || fail "'$*': output does not match /$regex/: $out"
}

# ---- build_bitstream.sh
expect 2 "--flow must be hls or rtl" -- env PATH=$BASE_PATH bash "$BUILD" --config pynq --flow bogus
expect 2 "--config is required" -- env PATH=$BASE_PATH bash "$BUILD" --flow hls
expect 2 "no config 'nosuch'" -- env PATH=$BASE_PATH bash "$BUILD" --config nosuch --flow rtl
expect 2 "no generated parameters" -- env PATH=$BASE_PATH bash "$BUILD" --config pynq --flow rtl --build-dir "$TMP/none"
expect 3 "vivado not found on PATH: the hls flow needs AMD Vivado" -- \
  env PATH=$BASE_PATH bash "$BUILD" --config pynq --flow hls --build-dir "$TMP/build" --out "$TMP/out"
expect 3 "vivado not found on PATH: the rtl flow" -- \
  env PATH=$BASE_PATH bash "$BUILD" --config pynq --flow rtl --build-dir "$TMP/build" --out "$TMP/out"

# Stand-in tools: record the command line, succeed (vitis_hls writes the IP zip
# the way export_design would).
for tool in vivado vitis_hls ssh scp; do
  cat >"$TMP/bin/$tool" <<STUB
#!/usr/bin/env bash
echo "$tool \$*" >>"$TMP/calls.log"
if [[ $tool == vitis_hls ]]; then
  cfg=\$4; out=\${10}
  mkdir -p "\$out/ip" && (cd "\$out/ip" && echo x >component.xml && python3 -m zipfile -c "vdla_hls_\$cfg.zip" component.xml)
fi
[[ $tool == ssh && -n \${FAIL_SSH:-} ]] && exit 255
exit 0
STUB
  chmod +x "$TMP/bin/$tool"
done
PATH_TOOLS=$TMP/bin:$BASE_PATH

expect 3 "vitis_hls not found on PATH" -- env PATH=$BASE_PATH:$TMP/onlyvivado bash -c \
  "mkdir -p $TMP/onlyvivado && ln -sf $TMP/bin/vivado $TMP/onlyvivado/vivado && bash $BUILD --config pynq --flow hls --build-dir $TMP/build --out $TMP/out"

rm -f "$TMP/calls.log"
expect 0 "vdla_pynq.bit and vdla_pynq.hwh \(hls flow, pynq-z1\)" -- \
  env PATH=$PATH_TOOLS bash "$BUILD" --config pynq --flow hls --build-dir "$TMP/build" --out "$TMP/out"
grep -q "^vitis_hls -f $ROOT/scripts/hw/hls.tcl -tclargs pynq xc7z020clg400-1 150 $ROOT/vdla_hw/hls $TMP/build/generated/vdla_hw/pynq $ROOT/vdla_hw/include $TMP/out $ROOT/vdla_hw/hls/tb/vdla_top_tb.cpp$" "$TMP/calls.log" ||
  fail "vitis_hls not called with pynq's part and clock: $(cat "$TMP/calls.log")"
grep -q "^vivado -mode batch -nojournal -source $ROOT/scripts/hw/vivado_bd.tcl -tclargs pynq xc7z020clg400-1 pynq-z1 150 $TMP/out/ip/hls_ip vdla_top s_axi_control m_axi_data $TMP/out hp$" "$TMP/calls.log" ||
  fail "vivado block design not called for the HLS IP: $(cat "$TMP/calls.log")"

rm -f "$TMP/calls.log"
expect 0 "vdla_zcu104.bit" -- env PATH=$PATH_TOOLS bash "$BUILD" --config zcu104 --flow rtl --port acp \
  --build-dir "$TMP/build" --out "$TMP/out2"
grep -q "rtl_package.tcl -tclargs zcu104 xczu7ev-ffvc1156-2-e $TMP/build/generated/vdla_hw/zcu104/vdla_pkg.sv $ROOT/vdla_hw/rtl" "$TMP/calls.log" ||
  fail "rtl flow does not package the RTL with zcu104's package: $(cat "$TMP/calls.log")"
grep -q "vivado_bd.tcl -tclargs zcu104 xczu7ev-ffvc1156-2-e zcu104 300 $TMP/out2/ip/vdla_rtl_zcu104 vdla_top s_axil m_axi $TMP/out2 acp$" "$TMP/calls.log" ||
  fail "rtl flow block design call is wrong: $(cat "$TMP/calls.log")"
grep -q vitis_hls "$TMP/calls.log" && fail "the rtl flow must not run vitis_hls"

# ---- flash.sh
touch "$TMP/out/vdla_pynq.bit" "$TMP/out/vdla_pynq.hwh"
expect 2 "--board HOST is required" -- env PATH=$PATH_TOOLS bash "$FLASH" --config pynq
expect 2 "no bitstream" -- env PATH=$PATH_TOOLS bash "$FLASH" --board b --config pynq --bit "$TMP/none.bit"
expect 2 "--method must be" -- env PATH=$PATH_TOOLS bash "$FLASH" --board b --config pynq --method jtag

rm -f "$TMP/calls.log"
expect 0 "loaded on 192.0.2.7 and the selftest passed" -- \
  env PATH=$PATH_TOOLS bash "$FLASH" --board 192.0.2.7 --config pynq --bit "$TMP/out/vdla_pynq.bit"
grep -q "^scp .* $TMP/out/vdla_pynq.bit $TMP/out/vdla_pynq.hwh xilinx@192.0.2.7:/home/xilinx/vdla/$" "$TMP/calls.log" ||
  fail "flash does not copy bit and hwh: $(cat "$TMP/calls.log")"
grep -q "BatchMode=yes -o ConnectTimeout=10 xilinx@192.0.2.7 .*fpgautil -b '/home/xilinx/vdla/vdla_pynq.bit'" "$TMP/calls.log" ||
  fail "flash does not load through the FPGA manager: $(cat "$TMP/calls.log")"
grep -q "xilinx@192.0.2.7 sudo vdla selftest --device pynq --config 'pynq'$" "$TMP/calls.log" ||
  fail "flash does not run the board selftest: $(cat "$TMP/calls.log")"

rm -f "$TMP/calls.log"
expect 0 "selftest passed" -- env PATH=$PATH_TOOLS bash "$FLASH" --board pynq.local --user root --method pynq \
  --config pynq --bit "$TMP/out/vdla_pynq.bit"
grep -q "root@pynq.local .*from pynq import Overlay; Overlay('/home/root/vdla/vdla_pynq.bit')" "$TMP/calls.log" ||
  fail "flash --method pynq does not load a PYNQ overlay: $(cat "$TMP/calls.log")"

expect 1 "flash: step failed: ssh" -- env PATH=$PATH_TOOLS FAIL_SSH=1 bash "$FLASH" --board down.example --config pynq \
  --bit "$TMP/out/vdla_pynq.bit"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "all flow script checks passed"
