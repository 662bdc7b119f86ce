# The Vitis HLS flow of hls.tcl for an xclbin (scripts/hw/build_xclbin.sh
# --flow hls): the same sources, C simulation, synthesis, register-window
# check and IP export, with one difference: the AXI master carries 64-bit
# addresses, as Vitis requires of a kernel's memory-mapped interfaces. The
# accelerator's DRAM addresses stay 32 bits wide, so the upper half is always
# zero; the Zynq block design of build_bitstream.sh keeps the narrower
# master.
#
#   vitis_hls -f scripts/hw/xrt_hls.tcl -tclargs (the arguments of hls.tcl)
#
# hls.tcl is run unchanged, with config_interface wrapped to turn its
# -m_axi_addr64=false into true, so that the two flows cannot drift apart.
set hls_script [file join [file dirname [file normalize [info script]]] hls.tcl]
if {[info commands config_interface] eq ""} {
  catch {auto_load config_interface}
}
if {[info commands config_interface] eq ""} {
  puts stderr "xrt_hls.tcl: no config_interface command: run this script with vitis_hls -f"
  exit 2
}
rename config_interface vdla_hls_config_interface
proc config_interface {args} {
  set widened {}
  foreach a $args {
    lappend widened [expr {$a eq "-m_axi_addr64=false" ? "-m_axi_addr64=true" : $a}]
  }
  vdla_hls_config_interface {*}$widened
}
source $hls_script
