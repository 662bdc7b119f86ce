#!/usr/bin/env bash
# build_xclbin.sh without Vitis, Vivado or a board:
#  * bad arguments exit 2 (a Zynq-7000 config is refused with a pointer to
#    build_bitstream.sh); missing v++/Vivado/Vitis HLS and a missing platform
#    exit 3 naming what is missing;
#  * dry runs of both flows print the tool commands with the platform and the
#    kernel, and write the v++ link config: its sp= line puts the kernel's AXI
#    master (the port name read from the HLS pragma or the RTL wrapper, not
#    from the script) on the memory bank, its clock is the config JSON's;
#  * with stand-in tools on PATH that record their command lines, a full run
#    calls them in order, finds the platform by name, reads the memory group
#    from the xclbin's memory table and writes the env file of `--device xrt`;
#    --rootfs/--kernel-image add the v++ --package step; a failing tool exits 1.
#
#   xclbin_flow_test.sh REPO_ROOT SCRATCH_DIR
set -uo pipefail
ROOT=$1
TMP=$2
rm -rf "$TMP" && mkdir -p "$TMP/bin" "$TMP/build/generated/vdla_hw"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
for c in pynq zcu104 ultra96; do
  mkdir -p "$TMP/build/generated/vdla_hw/$c"
  touch "$TMP/build/generated/vdla_hw/$c/vdla_params.h" "$TMP/build/generated/vdla_hw/$c/vdla_pkg.sv"
done
XCLBIN=$ROOT/scripts/hw/build_xclbin.sh
BASE_PATH=/usr/bin:/bin
B=(--build-dir "$TMP/build")

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
# The config's clock in Hz and the kernels' AXI master names, from the
# sources the flows build rather than from the script under test.
clock_hz() { python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["target"]["clock_mhz"]*1e6))' \
  "$ROOT/vdla_hw/config/$1.json"; }
hls_bundle=$(sed -n 's/.*interface mode = m_axi port = insn .*bundle = \([a-z_0-9]*\).*/\1/p' "$ROOT/vdla_hw/hls/vdla_top.cpp")
rtl_master=$(sed -n 's/.*output logic \[63:0\] \(m_axi_[a-z0-9]*\)_araddr.*/\1/p' "$ROOT/scripts/hw/xrt/vdla_xrt_rtl.sv")
[[ -n $hls_bundle && -n $rtl_master ]] || fail "cannot read the AXI master names (hls '$hls_bundle', rtl '$rtl_master')"
driver_ip=$(sed -n 's/.*std::string ip = "\([a-z_0-9]*\)";.*/\1/p' "$ROOT/driver/include/vdla/driver/xrt_device.h")

# check_cfg FILE CONFIG KERNEL MASTER BANK: the link config's three settings.
check_cfg() {
  python3 - "$@" "$(clock_hz "$2")" <<'EOF' || fail "link config $1 is wrong (see above)"
import configparser, sys
path, config, kernel, master, bank, hz = sys.argv[1:]
# v++ config files repeat keys (one sp= per port): read the lines themselves.
section, seen = None, {}
for line in open(path):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    if line.startswith("["):
        section = line.strip("[]")
        continue
    key, _, value = line.partition("=")
    seen.setdefault((section, key), []).append(value)
cu = kernel + "_1"
want = {("connectivity", "nk"): [f"{kernel}:1:{cu}"],
        ("connectivity", "sp"): [f"{cu}.{master}:{bank}"],
        ("clock", "freqHz"): [f"{hz}:{cu}"]}
bad = [f"{k}: {seen.get(k)} != {v}" for k, v in want.items() if seen.get(k) != v]
if bad or set(seen) != set(want):
    print("FAIL:", path, bad, sorted(seen))
    sys.exit(1)
EOF
}

# ---- bad arguments (exit 2)
expect 2 "--config is required" -- env PATH=$BASE_PATH bash "$XCLBIN" --flow hls --platform p
expect 2 "--flow must be hls or rtl" -- env PATH=$BASE_PATH bash "$XCLBIN" --config zcu104 --flow vhdl --platform p
expect 2 "--platform is required" -- env PATH=$BASE_PATH bash "$XCLBIN" --config zcu104 --flow hls
expect 2 "no config 'nosuch'" -- env PATH=$BASE_PATH bash "$XCLBIN" --config nosuch --flow hls --platform p
expect 2 "Zynq-7000.*build_bitstream.sh --config pynq" -- \
  env PATH=$BASE_PATH bash "$XCLBIN" --config pynq --flow hls --platform p "${B[@]}"
expect 2 "--memory must name a platform memory" -- \
  env PATH=$BASE_PATH bash "$XCLBIN" --config zcu104 --flow rtl --platform p --memory "HP0; rm" "${B[@]}"
expect 2 "--rootfs and --kernel-image go together" -- \
  env PATH=$BASE_PATH bash "$XCLBIN" --config zcu104 --flow rtl --platform p --rootfs /etc/hostname "${B[@]}"
expect 2 "no such file: '$TMP/none.ext4'" -- env PATH=$BASE_PATH bash "$XCLBIN" --config zcu104 --flow rtl \
  --platform p --rootfs "$TMP/none.ext4" --kernel-image "$TMP/none.img" "${B[@]}"
expect 2 "no generated parameters" -- \
  env PATH=$BASE_PATH bash "$XCLBIN" --config zcu104 --flow rtl --platform p --build-dir "$TMP/none"
expect 2 "unknown argument '--bogus'" -- env PATH=$BASE_PATH bash "$XCLBIN" --bogus

# ---- missing tools and platform (exit 3)
expect 3 "vivado not found on PATH: the rtl flow needs AMD Vivado" -- \
  env PATH=$BASE_PATH bash "$XCLBIN" --config zcu104 --flow rtl --platform p "${B[@]}" --out "$TMP/o"

# Stand-in tools: record the command line and succeed. vitis_hls writes the
# IP zip as export_design would, v++ its -o file, xclbinutil a memory table
# with an unused bank before the connected HP0 (so the group is 1, not 0).
for tool in vivado vitis_hls v++ xclbinutil; do
  cat >"$TMP/bin/$tool" <<STUB
#!/usr/bin/env bash
echo "$tool \$*" >>"$TMP/calls.log"
case $tool in
  vitis_hls) cfg=\$4; out=\${10}
    mkdir -p "\$out/ip" && (cd "\$out/ip" && echo x >component.xml && python3 -m zipfile -c "vdla_hls_\$cfg.zip" component.xml) ;;
  v++) [[ -n \${FAIL_VPP:-} ]] && exit 1
    while ((\$#)); do [[ \$1 == -o ]] && echo xclbin >"\$2"; shift; done ;;
  xclbinutil) for a in "\$@"; do [[ \$a == MEM_TOPOLOGY:JSON:* ]] && cat >"\${a#MEM_TOPOLOGY:JSON:}" <<'JSON'
{"mem_topology": {"m_count": "2", "m_mem_data": [
  {"m_type": "MEM_DDR4", "m_used": "0", "m_tag": "HPC0", "m_base_address": "0x0"},
  {"m_type": "MEM_DDR4", "m_used": "1", "m_tag": "HP0", "m_base_address": "0x0"}]}}
JSON
    done ;;
esac
exit 0
STUB
  chmod +x "$TMP/bin/$tool"
done
mkdir -p "$TMP/vivado_only" "$TMP/no_vpp" "$TMP/platforms/zcu104_base"
ln -sf "$TMP/bin/vivado" "$TMP/vivado_only/vivado"
ln -sf "$TMP/bin/vivado" "$TMP/no_vpp/vivado"
ln -sf "$TMP/bin/vitis_hls" "$TMP/no_vpp/vitis_hls"
touch "$TMP/platforms/zcu104_base/zcu104_base.xpfm"
PLATFORM=$TMP/platforms/zcu104_base/zcu104_base.xpfm
PATH_TOOLS=$TMP/bin:$BASE_PATH

expect 3 "vitis_hls not found on PATH: the hls flow needs AMD Vitis HLS" -- \
  env PATH=$TMP/vivado_only:$BASE_PATH bash "$XCLBIN" --config zcu104 --flow hls --platform p "${B[@]}"
expect 3 "v\+\+ not found on PATH: the hls flow needs AMD Vitis" -- \
  env PATH=$TMP/no_vpp:$BASE_PATH bash "$XCLBIN" --config zcu104 --flow hls --platform p "${B[@]}"
expect 3 "^build_xclbin: download the zcu104 Vitis embedded platform" -- \
  env PATH=$PATH_TOOLS PLATFORM_REPO_PATHS=$TMP/platforms bash "$XCLBIN" --config zcu104 --flow rtl \
  --platform xilinx_zcu104_base_202310_1 "${B[@]}" --out "$TMP/o"
expect 3 "platform '$TMP/nowhere.xpfm' not found" -- env PATH=$PATH_TOOLS bash "$XCLBIN" --config zcu104 --flow rtl \
  --platform "$TMP/nowhere.xpfm" "${B[@]}" --out "$TMP/o"

# ---- dry runs: commands printed, config written, no tool run
for flow in hls rtl; do
  for c in zcu104 ultra96; do
    out=$TMP/dry-$c-$flow
    rm -f "$TMP/calls.log"
    log=$(env PATH=$PATH_TOOLS bash "$XCLBIN" --config $c --flow $flow --platform "$PLATFORM" --memory HP1 \
      "${B[@]}" --out "$out" --dry-run 2>&1) || fail "dry run $c $flow exited $?: $log"
    [[ ! -e $TMP/calls.log ]] || fail "dry run $c $flow ran tools: $(cat "$TMP/calls.log")"
    if [[ $flow == hls ]]; then kernel=vdla_top master=m_axi_$hls_bundle; else kernel=vdla_xrt_rtl master=$rtl_master; fi
    grep -qF -- "+ v++ -l -t hw --platform $PLATFORM --config $out/vdla_$c.link.cfg " <<<"$log" ||
      fail "dry run $c $flow: no v++ link on the platform: $log"
    grep -qF -- "-o $out/vdla_$c.xclbin $out/xo/${kernel}_$c.xo" <<<"$log" ||
      fail "dry run $c $flow: v++ does not link the $kernel kernel into vdla_$c.xclbin: $log"
    check_cfg "$out/vdla_$c.link.cfg" $c $kernel "$master" HP1
    grep -q "^export VDLA_XRT_IP=$kernel$" "$out/vdla_$c.xrt.env" || fail "env file of $c $flow: wrong IP"
  done
done
grep -qF "+ vitis_hls -f $ROOT/scripts/hw/xrt_hls.tcl -tclargs ultra96 xczu3eg-sbva484-1-i 287 " <<<"$(
  env PATH=$PATH_TOOLS bash "$XCLBIN" --config ultra96 --flow hls --platform "$PLATFORM" "${B[@]}" --out "$TMP/d2" \
    --dry-run 2>&1)" || fail "hls dry run does not synthesise with xrt_hls.tcl for ultra96's part and clock"
[[ $driver_ip == vdla_top ]] || fail "the xrt device's default IP is '$driver_ip', not the HLS kernel vdla_top"
# Without any tool or platform a dry run still shows every step.
expect 0 "\+ xclbinutil --input" -- env PATH=$BASE_PATH bash "$XCLBIN" --config zcu104 --flow rtl \
  --platform xilinx_zcu104_base_202310_1 "${B[@]}" --out "$TMP/d3" --dry-run

# ---- full runs with the stand-ins
rm -f "$TMP/calls.log"
expect 0 "vdla_zcu104.xclbin and vdla_zcu104.xrt.env \(hls flow, zcu104, kernel vdla_top, memory HP0, group 1\)" -- \
  env PATH=$PATH_TOOLS PLATFORM_REPO_PATHS=/nonexistent:$TMP/platforms bash "$XCLBIN" --config zcu104 --flow hls \
  --platform zcu104_base "${B[@]}" --out "$TMP/full"
tools=$(cut -d' ' -f1 "$TMP/calls.log" | tr '\n' ' ')
[[ $tools == "vitis_hls vivado v++ xclbinutil " ]] || fail "hls flow tool order: $tools"
grep -q "^vivado .*xo_package.tcl -tclargs hls zcu104 xczu7ev-ffvc1156-2-e $TMP/full/ip/hls_ip $TMP/full/xo/vdla_top_zcu104.xo$" \
  "$TMP/calls.log" || fail "package_xo not run on the unpacked HLS IP: $(cat "$TMP/calls.log")"
[[ -f $TMP/full/ip/hls_ip/component.xml ]] || fail "the HLS IP zip was not unpacked"
grep -q "^v++ -l -t hw --platform $TMP/platforms/zcu104_base/zcu104_base.xpfm " "$TMP/calls.log" ||
  fail "the platform name was not resolved through PLATFORM_REPO_PATHS: $(cat "$TMP/calls.log")"
env_out=$(cd / && bash -c "source '$TMP/full/vdla_zcu104.xrt.env' && echo \$VDLA_XRT_XCLBIN \$VDLA_XRT_IP \$VDLA_XRT_MEM_GROUP")
[[ $env_out == "$TMP/full/vdla_zcu104.xclbin vdla_top 1" ]] || fail "env file gives '$env_out'"

rm -f "$TMP/calls.log"
touch "$TMP/rootfs.ext4" "$TMP/Image"
expect 0 "kernel vdla_xrt_rtl" -- env PATH=$PATH_TOOLS bash "$XCLBIN" --config ultra96 --flow rtl --platform "$PLATFORM" \
  "${B[@]}" --out "$TMP/full2" --rootfs "$TMP/rootfs.ext4" --kernel-image "$TMP/Image"
grep -q "^vivado .*xo_package.tcl -tclargs rtl ultra96 xczu3eg-sbva484-1-i $TMP/build/generated/vdla_hw/ultra96/vdla_pkg.sv $ROOT/vdla_hw/rtl $ROOT/scripts/hw/xrt/vdla_xrt_rtl.sv $TMP/full2/xo/vdla_xrt_rtl_ultra96.xo$" \
  "$TMP/calls.log" || fail "rtl flow does not package the wrapped RTL: $(cat "$TMP/calls.log")"
grep -q "^v++ -l .* -o $TMP/full2/vdla_ultra96.link.xclbin " "$TMP/calls.log" || fail "link output with packaging"
grep -q "^v++ -p -t hw --platform $PLATFORM --package.rootfs $TMP/rootfs.ext4 --package.kernel_image $TMP/Image --package.boot_mode=sd --package.out_dir $TMP/full2/package .*-o $TMP/full2/vdla_ultra96.xclbin $TMP/full2/vdla_ultra96.link.xclbin$" \
  "$TMP/calls.log" || fail "no v++ --package step for the SD card: $(cat "$TMP/calls.log")"
grep -q vitis_hls "$TMP/calls.log" && fail "the rtl flow must not run vitis_hls"

expect 1 "build_xclbin: 'v\+\+' failed \(logs in $TMP/full3\)" -- env PATH=$PATH_TOOLS FAIL_VPP=1 bash "$XCLBIN" \
  --config zcu104 --flow rtl --platform "$PLATFORM" "${B[@]}" --out "$TMP/full3"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "all xclbin flow checks passed"
