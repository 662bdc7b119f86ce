# Vitis HLS flow of the VDLA accelerator: C simulation (optional test bench),
# C synthesis and IP export of the top vdla_top (vdla_hw/hls/vdla_top.cpp).
#
#   vitis_hls -f scripts/hw/hls.tcl -tclargs CONFIG PART CLOCK_MHZ SRC_DIR PARAMS_DIR INCLUDE_DIR OUT_DIR [TB_FILE]
#
# PARAMS_DIR holds the generated vdla_params.h of CONFIG; INCLUDE_DIR is
# vdla_hw/include (vdla/hw/registers.h). scripts/hw/build_bitstream.sh passes
# all of them from the config JSON.
if {[llength $::argv] < 7} {
  puts stderr "hls.tcl: expected CONFIG PART CLOCK_MHZ SRC_DIR PARAMS_DIR INCLUDE_DIR OUT_DIR \[TB_FILE\], got: $::argv"
  exit 2
}
lassign $::argv config part clock_mhz src_dir params_dir include_dir out_dir tb_file

set period_ns [format %.3f [expr {1000.0 / $clock_mhz}]]
set cflags "-std=c++14 -I$src_dir -I$params_dir -I$include_dir"
set sources {fetch.cpp load.cpp compute.cpp store.cpp ctrl_regs.cpp vdla_top.cpp}

open_project -reset $out_dir/vdla_hls_$config
set_top vdla_top
foreach f $sources {
  add_files $src_dir/$f -cflags $cflags
}
if {$tb_file ne ""} {
  add_files -tb $tb_file -cflags $cflags
}
open_solution -reset solution -flow_target vivado
set_part $part
create_clock -period $period_ns -name default
# Registers and AXI adapters sized for the configured clock; the GEMM loop
# keeps II=1 through its pipeline pragma.
config_interface -m_axi_addr64=false
config_compile -pipeline_loops 64

if {$tb_file ne ""} {
  csim_design
}
csynth_design

# The host finds the register map at the start of the AXI-Lite slave only if
# Vitis placed the register window there; refuse an export that moved it.
set header [glob -nocomplain $out_dir/vdla_hls_$config/solution/impl/misc/drivers/*/src/*_hw.h]
if {$header eq ""} {
  set header [glob -nocomplain $out_dir/vdla_hls_$config/solution/syn/verilog/*control_s_axi.v]
}
foreach h $header {
  set fd [open $h r]
  set text [read $fd]
  close $fd
  if {[regexp {ADDR_WINDOW_BASE\s+0x([0-9a-fA-F]+)} $text -> base] && [scan $base %x] != 0} {
    puts stderr "hls.tcl: Vitis placed the register window at 0x$base, not 0: drivers would not find CTRL at 0x000"
    exit 1
  }
}

export_design -format ip_catalog -rtl verilog -vendor vdla.dev -library vdla -ipname vdla_top -version 1.0 \
  -output $out_dir/ip/vdla_hls_$config.zip
close_project
exit 0
