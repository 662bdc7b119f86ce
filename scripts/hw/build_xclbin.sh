#!/usr/bin/env bash
# Builds the xclbin of a VDLA instance for the xrt device (`--device xrt`) on
# a Zynq UltraScale+ board running XRT's embedded driver (zocl): ZCU104,
# Ultra96-V2, or another xczu* config.
#
#   scripts/hw/build_xclbin.sh --config CONFIG --flow hls|rtl --platform XPFM
#                              [--memory BANK] [--build-dir DIR] [--out DIR]
#                              [--rootfs FILE --kernel-image FILE] [--dry-run]
#
# XPFM is the Vitis embedded platform of the board: a path to its .xpfm, or
# its name looked up in $PLATFORM_REPO_PATHS (e.g. xilinx_zcu104_base_202310_1,
# from AMD's Vitis embedded platforms download page; for Ultra96-V2 Avnet's
# u96v2_sbc_base). --flow hls synthesises vdla_hw/hls with Vitis HLS
# (xrt_hls.tcl: hls.tcl with 64-bit AXI master addresses); --flow rtl wraps
# vdla_hw/rtl in scripts/hw/xrt/vdla_xrt_rtl.sv. Vivado's package_xo makes
# either a user-managed kernel (xo_package.tcl); v++ --link places it in the
# platform with the generated config OUT/vdla_CONFIG.link.cfg: one compute
# unit, its AXI master on the platform memory BANK (default HP0), its clock at
# the config's clock_mhz. With --rootfs and --kernel-image (the platform's
# common image), v++ --package also writes an SD card in OUT/package.
# OUT (default build/xclbin/CONFIG-FLOW) receives vdla_CONFIG.xclbin and
# vdla_CONFIG.xrt.env, the VDLA_XRT_* settings of `--device xrt` for it.
# Generated parameters come from <build>/generated/vdla_hw/<config> as for
# build_bitstream.sh (--build-dir, else $VDLA_BUILD_DIR, else build/release).
# --dry-run writes the config files and prints the tool commands only.
#
# Exit status: 0 written, 1 a tool failed, 2 bad arguments (a Zynq-7000
# config among them: build_bitstream.sh builds those), 3 Vitis, Vivado or
# Vitis HLS is not installed, or the platform is not found (the message says
# which and how to get it).
set -euo pipefail

# Facts of the Vitis flow this script relies on (UG1393/UG1701, 2021.1 to
# 2025.x):
#  * package_xo -kernel_name K -ctrl_protocol user_managed -ip_directory D
#    -xo_path X turns a packaged Vivado IP into a kernel object; user-managed
#    kernels are those that xrt::ip opens (xrt::kernel refuses them), which is
#    what driver/src/xrt_device.cpp uses.
#  * A kernel needs a clock, an optional active-low reset associated with it,
#    exactly one AXI4-Lite slave, AXI4 masters with 64-bit addresses, and no
#    port outside a bus interface.
#  * v++ -l -t hw --platform P --config F K.xo -o A.xclbin links; in F,
#    [connectivity] nk=K:1:CU names one compute unit and
#    sp=CU.<interface>:<memory> ties an AXI master to a platform memory (on
#    Zynq UltraScale+ base platforms the PS ports HP0..HP3, HPC0, HPC1, all
#    DDR below 4 GiB for zocl's CMA buffers); [clock] freqHz=HZ:CU asks the
#    platform's clocking for that frequency (nearest within tolerance,
#    otherwise the default clock with a warning).
#  * v++ -p -t hw --platform P --package.rootfs R --package.kernel_image I
#    --package.boot_mode=sd --package.out_dir D A.xclbin -o B.xclbin writes
#    the SD card (BOOT.BIN, boot script, image) for the embedded platform.
#  * xclbinutil --input A.xclbin --dump-section MEM_TOPOLOGY:JSON:F writes
#    the memory table whose index is XRT's memory group
#    (mem_topology.m_mem_data[i], m_used "1" for a connected one).

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FLOW_PROG=build_xclbin
# shellcheck source=scripts/hw/lib_flow.sh
source "$ROOT/scripts/hw/lib_flow.sh"
config_arg="" flow="" platform="" memory=HP0 build_dir="${VDLA_BUILD_DIR:-$ROOT/build/release}" out_dir=""
rootfs="" kernel_image="" dry_run=0
while (($#)); do
  case "$1" in
    --config) shift; (($#)) || usage; config_arg=$1 ;;
    --flow) shift; (($#)) || usage; flow=$1 ;;
    --platform) shift; (($#)) || usage; platform=$1 ;;
    --memory) shift; (($#)) || usage; memory=$1 ;;
    --build-dir) shift; (($#)) || usage; build_dir=$1 ;;
    --out) shift; (($#)) || usage; out_dir=$1 ;;
    --rootfs) shift; (($#)) || usage; rootfs=$1 ;;
    --kernel-image) shift; (($#)) || usage; kernel_image=$1 ;;
    --dry-run) dry_run=1 ;;
    -h|--help) usage ;;
    *) echo "build_xclbin: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
[[ -n $config_arg ]] || flow_die "--config is required (e.g. --config zcu104)"
[[ $flow == hls || $flow == rtl ]] || flow_die "--flow must be hls or rtl, got '${flow}'"
[[ -n $platform ]] || flow_die "--platform is required: the board's Vitis platform (.xpfm path or name)"
[[ $memory =~ ^[A-Za-z][A-Za-z0-9_]*(\[[0-9]+(:[0-9]+)?\])?$ ]] ||
  flow_die "--memory must name a platform memory such as HP0 or DDR[0], got '$memory'"
[[ -z $rootfs && -z $kernel_image || -n $rootfs && -n $kernel_image ]] ||
  flow_die "--rootfs and --kernel-image go together (the SD card needs both)"
for f in "$rootfs" "$kernel_image"; do
  [[ -z $f || -f $f ]] || flow_die "no such file: '$f'"
done

flow_resolve_config "$config_arg"
flow_read_target
[[ $part == xczu* ]] || flow_die "config '$config' targets $part, a Zynq-7000: this xclbin flow is for Zynq" \
  "UltraScale+ (xczu*) boards with XRT; build a bitstream with scripts/hw/build_bitstream.sh --config $config instead"
flow_params_dir "$build_dir"
out_dir=${out_dir:-$ROOT/build/xclbin/$config-$flow}

flow_need vivado "Vivado 2023.1 or newer (package_xo)"
[[ $flow == rtl ]] || flow_need vitis_hls "Vitis HLS 2023.1 or newer"
flow_need v++ "Vitis 2023.1 or newer (v++)"

# The platform: an .xpfm path, or a name under $PLATFORM_REPO_PATHS.
platform_file=""
if [[ -f $platform ]]; then
  platform_file=$(cd "$(dirname "$platform")" && pwd)/$(basename "$platform")
elif [[ $platform != */* && $platform != *.xpfm ]]; then
  IFS=: read -r -a repos <<<"${PLATFORM_REPO_PATHS:-}"
  for r in "${repos[@]}"; do
    [[ -n $r && -f $r/$platform/$platform.xpfm ]] && { platform_file=$r/$platform/$platform.xpfm; break; }
  done
fi
if [[ -z $platform_file ]]; then
  if ((dry_run)); then
    echo "build_xclbin: note: platform '$platform' not found (dry run continues)" >&2
    platform_file=$platform
  else
    echo "build_xclbin: platform '$platform' not found: neither an .xpfm file nor a platform under" \
      "PLATFORM_REPO_PATHS='${PLATFORM_REPO_PATHS:-}'." >&2
    echo "build_xclbin: download the $board Vitis embedded platform (ZCU104: xilinx_zcu104_base_<version>" \
      "from AMD's Vitis embedded platforms page; Ultra96-V2: Avnet's u96v2_sbc_base), unpack it, and pass" \
      "its .xpfm or set PLATFORM_REPO_PATHS to its parent directory." >&2
    exit 3
  fi
fi

if [[ $flow == hls ]]; then
  kernel=vdla_top master_if=m_axi_data
else
  kernel=vdla_xrt_rtl master_if=m_axi_gmem
fi
cu=${kernel}_1
clock_hz=$(python3 -c 'import sys; print(round(float(sys.argv[1]) * 1e6))' "$clock_mhz")
xo=$out_dir/xo/${kernel}_$config.xo
link_cfg=$out_dir/vdla_$config.link.cfg
xclbin=$out_dir/vdla_$config.xclbin
linked=$xclbin
[[ -z $rootfs ]] || linked=$out_dir/vdla_$config.link.xclbin
env_file=$out_dir/vdla_$config.xrt.env

mkdir -p "$out_dir/xo"
cat >"$link_cfg" <<EOF
# v++ --link configuration of VDLA config '$config' ($flow flow), written by
# scripts/hw/build_xclbin.sh: one user-managed compute unit, its AXI master
# on platform memory $memory, its clock at the config's $clock_mhz MHz.
[connectivity]
nk=$kernel:1:$cu
sp=$cu.$master_if:$memory

[clock]
freqHz=$clock_hz:$cu
EOF

if [[ $flow == hls ]]; then
  flow_run vitis_hls -f "$ROOT/scripts/hw/xrt_hls.tcl" -tclargs "$config" "$part" "$clock_mhz" "$ROOT/vdla_hw/hls" \
    "$params_dir" "$ROOT/vdla_hw/include" "$out_dir" "$ROOT/vdla_hw/hls/tb/vdla_top_tb.cpp"
  ((dry_run)) || flow_unzip_hls_ip "$out_dir/ip/vdla_hls_$config.zip" "$out_dir/ip/hls_ip"
  flow_run vivado -mode batch -nojournal -source "$ROOT/scripts/hw/xo_package.tcl" -tclargs hls "$config" "$part" \
    "$out_dir/ip/hls_ip" "$xo"
else
  flow_run vivado -mode batch -nojournal -source "$ROOT/scripts/hw/xo_package.tcl" -tclargs rtl "$config" "$part" \
    "$params_dir/vdla_pkg.sv" "$ROOT/vdla_hw/rtl" "$ROOT/scripts/hw/xrt/vdla_xrt_rtl.sv" "$xo"
fi
flow_run v++ -l -t hw --platform "$platform_file" --config "$link_cfg" --temp_dir "$out_dir/_x" \
  --log_dir "$out_dir/logs" -o "$linked" "$xo"
if [[ -n $rootfs ]]; then
  flow_run v++ -p -t hw --platform "$platform_file" --package.rootfs "$rootfs" --package.kernel_image "$kernel_image" \
    --package.boot_mode=sd --package.out_dir "$out_dir/package" --temp_dir "$out_dir/_x" -o "$xclbin" "$linked"
fi

# The memory group of the buffers: the index of the bank the master is on in
# the xclbin's memory table (xclbinutil ships with Vitis and XRT).
mem_group=0
if command -v xclbinutil >/dev/null || ((dry_run)); then
  flow_run xclbinutil --input "$xclbin" --dump-section "MEM_TOPOLOGY:JSON:$out_dir/mem_topology.json" --force
  if ((!dry_run)); then
    mem_group=$(python3 - "$out_dir/mem_topology.json" "$memory" <<'EOF'
import json, sys
banks = json.load(open(sys.argv[1]))["mem_topology"]["m_mem_data"]
used = [i for i, b in enumerate(banks) if str(b.get("m_used", "0")) == "1"]
tagged = [i for i in used if banks[i].get("m_tag") == sys.argv[2]]
if not used:
    sys.exit("no memory bank of the xclbin is connected")
print((tagged or used)[0])
EOF
    ) || { echo "build_xclbin: cannot read the memory table of $xclbin" >&2; exit 1; }
  fi
else
  echo "build_xclbin: note: xclbinutil not found; memory group 0 assumed (check with 'xclbinutil --info')" >&2
fi
cat >"$env_file" <<EOF
# The xrt device's settings for vdla_$config.xclbin ($flow flow): copy both
# files to the board, then 'source vdla_$config.xrt.env' and run
# 'vdla selftest --device xrt --config $config'.
export VDLA_XRT_XCLBIN="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)/vdla_$config.xclbin"
export VDLA_XRT_IP=$kernel
export VDLA_XRT_MEM_GROUP=$mem_group
EOF
if ((dry_run)); then
  echo "build_xclbin: dry run: wrote $link_cfg and $env_file" >&2
else
  echo "build_xclbin: $xclbin and $(basename "$env_file") ($flow flow, $board, kernel $kernel, memory $memory," \
    "group $mem_group)"
fi
