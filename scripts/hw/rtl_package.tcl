# Packages the SystemVerilog RTL (vdla_hw/rtl) of one config as a Vivado IP
# (the "rtl" flow of build_bitstream.sh), with the AXI-Lite slave and the AXI4
# master inferred from their port names.
#
#   vivado -mode batch -source scripts/hw/rtl_package.tcl -tclargs CONFIG PART PKG_FILE RTL_DIR OUT_DIR
if {[llength $::argv] != 5} {
  puts stderr "rtl_package.tcl: expected CONFIG PART PKG_FILE RTL_DIR OUT_DIR, got: $::argv"
  exit 2
}
lassign $::argv config part pkg_file rtl_dir out_dir

create_project -force vdla_rtl_$config $out_dir/rtl_package_$config -part $part
# The generated package first: every module imports vdla_pkg.
add_files -norecurse $pkg_file
foreach f [lsort [glob $rtl_dir/vdla_*.sv]] {
  add_files -norecurse $f
}
set_property top vdla_top [current_fileset]
update_compile_order -fileset sources_1

ipx::package_project -root_dir $out_dir/ip/vdla_rtl_$config -vendor vdla.dev -library vdla -taxonomy /UserIP \
  -import_files -set_current true
set core [ipx::current_core]
set_property name vdla_top $core
set_property version 1.0 $core
set_property display_name "VDLA accelerator ($config, RTL)" $core
ipx::infer_bus_interfaces xilinx.com:interface:aximm_rtl:1.0 $core
# rst is active high (vdla_top.sv).
ipx::infer_bus_interfaces xilinx.com:signal:reset_rtl:1.0 $core
set_property value ACTIVE_HIGH [ipx::add_bus_parameter POLARITY [ipx::get_bus_interfaces rst -of_objects $core]]
ipx::associate_bus_interfaces -busif s_axil -clock clk $core
ipx::associate_bus_interfaces -busif m_axi -clock clk $core
ipx::create_xgui_files $core
ipx::update_checksums $core
ipx::check_integrity $core
ipx::save_core $core
close_project
exit 0
