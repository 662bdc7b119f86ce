# Packages the VDLA accelerator as a Vitis kernel object (.xo) for the xclbin
# flow (scripts/hw/build_xclbin.sh), as a user-managed kernel: XRT does not
# start or stop it (the HLS top is ap_ctrl_none, the RTL free-running); the
# host drives the register map of docs/hardware.md itself through xrt::ip,
# which opens only user-managed IP.
#
#   vivado -mode batch -source scripts/hw/xo_package.tcl -tclargs hls CONFIG PART IP_DIR XO_FILE
#   vivado -mode batch -source scripts/hw/xo_package.tcl -tclargs rtl CONFIG PART PKG_FILE RTL_DIR WRAPPER XO_FILE
#
# hls: IP_DIR is the unpacked IP that hls.tcl exported (kernel vdla_top; its
# ports ap_clk, ap_rst_n, s_axi_control, m_axi_data already have the names
# Vitis expects). rtl: the RTL of RTL_DIR with the config's generated package
# PKG_FILE is packaged as an IP under the kernel wrapper WRAPPER
# (scripts/hw/xrt/vdla_xrt_rtl.sv, kernel vdla_xrt_rtl: ap_clk, ap_rst_n,
# s_axi_control, m_axi_gmem), with the properties that Vivado's "Package for
# Vitis" sets. Both end with package_xo -ctrl_protocol user_managed, which
# writes the kernel XML from the IP's interfaces.
proc usage_error {} {
  puts stderr "xo_package.tcl: expected 'hls CONFIG PART IP_DIR XO_FILE' or\
 'rtl CONFIG PART PKG_FILE RTL_DIR WRAPPER XO_FILE', got: $::argv"
  exit 2
}
set flow [lindex $::argv 0]
if {$flow eq "hls" && [llength $::argv] == 5} {
  lassign $::argv flow config part ip_dir xo_file
  set kernel vdla_top
} elseif {$flow eq "rtl" && [llength $::argv] == 7} {
  lassign $::argv flow config part pkg_file rtl_dir wrapper xo_file
  set kernel vdla_xrt_rtl
} else {
  usage_error
}
set work [file dirname $xo_file]

if {$flow eq "rtl"} {
  set ip_dir $work/ip/${kernel}_$config
  create_project -force ${kernel}_$config $work/xo_project_$config -part $part
  # The generated package first: every module imports vdla_pkg.
  add_files -norecurse $pkg_file
  foreach f [lsort [glob $rtl_dir/vdla_*.sv]] {
    add_files -norecurse $f
  }
  add_files -norecurse $wrapper
  set_property top $kernel [current_fileset]
  update_compile_order -fileset sources_1

  ipx::package_project -root_dir $ip_dir -vendor vdla.dev -library vdla -taxonomy /KernelIP \
    -import_files -set_current true
  set core [ipx::current_core]
  set_property name $kernel $core
  set_property version 1.0 $core
  set_property display_name "VDLA accelerator ($config, RTL, Vitis kernel)" $core
  ipx::infer_bus_interfaces xilinx.com:interface:aximm_rtl:1.0 $core
  ipx::infer_bus_interfaces xilinx.com:signal:clock_rtl:1.0 $core
  ipx::infer_bus_interfaces xilinx.com:signal:reset_rtl:1.0 $core
  ipx::associate_bus_interfaces -busif s_axi_control -clock ap_clk $core
  ipx::associate_bus_interfaces -busif m_axi_gmem -clock ap_clk $core
  ipx::associate_bus_interfaces -clock ap_clk -reset ap_rst_n $core
  # Vitis refuses a kernel whose AXI4-Lite slave has no register: declare the
  # window as one 4 KiB block (the slave decodes 12 address bits) with CTRL at
  # its base, where every VDLA driver looks first.
  set map [ipx::add_memory_map s_axi_control $core]
  set_property slave_memory_map_ref s_axi_control [ipx::get_bus_interfaces s_axi_control -of_objects $core]
  set block [ipx::add_address_block reg0 $map]
  set_property range 4096 $block
  set ctrl [ipx::add_register CTRL $block]
  set_property address_offset 0x000 $ctrl
  set_property size 32 $ctrl
  # What Vivado's "Package for Vitis" sets for a user-managed RTL kernel.
  set_property sdx_kernel true $core
  set_property sdx_kernel_type rtl $core
  set_property ipi_drc {ignore_freq_hz true} $core
  set_property vitis_drc {ctrl_protocol user_managed} $core
  ipx::create_xgui_files $core
  ipx::update_checksums $core
  ipx::check_integrity -kernel $core
  ipx::save_core $core
  close_project
}

package_xo -kernel_name $kernel -ctrl_protocol user_managed -ip_directory $ip_dir -xo_path $xo_file -force \
  -output_kernel_xml $work/${kernel}_$config.kernel.xml
if {![file exists $xo_file]} {
  puts stderr "xo_package.tcl: package_xo did not write $xo_file"
  exit 1
}
puts "xo_package.tcl: wrote $xo_file (kernel $kernel, $flow flow, $config)"
exit 0
