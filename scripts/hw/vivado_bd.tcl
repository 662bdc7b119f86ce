# Vivado block design, implementation and bitstream of a VDLA instance on a
# Zynq-7000 (processing_system7) or Zynq UltraScale+ (zynq_ultra_ps_e) board:
# the processing system, the accelerator IP (from the HLS or the RTL flow),
# AXI interconnects, the PS's HP (or ACP) slave port for the accelerator's
# DRAM master, and the fabric clock at the config's frequency. Writes
# OUT_DIR/vdla_CONFIG.bit and .hwh.
#
#   vivado -mode batch -source scripts/hw/vivado_bd.tcl -tclargs CONFIG PART BOARD CLOCK_MHZ IP_REPO IP_NAME SLAVE_IF MASTER_IF OUT_DIR [hp|acp]
#
# SLAVE_IF/MASTER_IF: the IP's AXI-Lite slave and AXI master interfaces
# (s_axi_control/m_axi_data for the HLS IP, s_axil/m_axi for the RTL IP).
if {[llength $::argv] < 9} {
  puts stderr "vivado_bd.tcl: expected CONFIG PART BOARD CLOCK_MHZ IP_REPO IP_NAME SLAVE_IF MASTER_IF OUT_DIR \[hp|acp\], got: $::argv"
  exit 2
}
lassign $::argv config part board clock_mhz ip_repo ip_name slave_if master_if out_dir port
if {$port eq ""} { set port hp }
if {$port ni {hp acp}} {
  puts stderr "vivado_bd.tcl: port must be hp or acp, got '$port'"
  exit 2
}
set zynq_us [string match xczu* $part]

create_project -force vdla_$config $out_dir/vivado_$config -part $part
set_property ip_repo_paths $ip_repo [current_project]
update_ip_catalog
create_bd_design vdla

# Processing system with one fabric clock, one general-purpose master for the
# registers and one slave port for the accelerator's DRAM traffic.
if {$zynq_us} {
  set ps [create_bd_cell -type ip -vlnv xilinx.com:ip:zynq_ultra_ps_e:3.4 ps]
  apply_bd_automation -rule xilinx.com:bd_rule:zynq_ultra_ps_e -config {apply_board_preset "1"} $ps
  set_property -dict [list CONFIG.PSU__FPGA_PL0_ENABLE {1} CONFIG.PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ $clock_mhz \
    CONFIG.PSU__USE__M_AXI_GP0 {1} CONFIG.PSU__USE__M_AXI_GP1 {0} \
    CONFIG.PSU__USE__S_AXI_GP2 [expr {$port eq "hp"}] CONFIG.PSU__USE__S_AXI_ACP [expr {$port eq "acp"}]] $ps
  set clk ps/pl_clk0
  set slave [expr {$port eq "hp" ? "ps/S_AXI_HP0_FPD" : "ps/S_AXI_ACP_FPD"}]
} else {
  set ps [create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7:5.5 ps]
  apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 -config {make_external "FIXED_IO, DDR" apply_board_preset "1"} $ps
  set_property -dict [list CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ $clock_mhz CONFIG.PCW_USE_M_AXI_GP0 {1} \
    CONFIG.PCW_USE_S_AXI_HP0 [expr {$port eq "hp"}] CONFIG.PCW_USE_S_AXI_ACP [expr {$port eq "acp"}]] $ps
  set clk ps/FCLK_CLK0
  set slave [expr {$port eq "hp" ? "ps/S_AXI_HP0" : "ps/S_AXI_ACP"}]
}

set accel [create_bd_cell -type ip -vlnv vdla.dev:vdla:$ip_name:1.0 vdla]
# Registers: PS master -> interconnect -> accelerator AXI-Lite slave.
apply_bd_automation -rule xilinx.com:bd_rule:axi4 \
  -config [list Clk_master $clk Clk_slave $clk Clk_xbar $clk Master /ps/[expr {$zynq_us ? "M_AXI_HPM0_FPD" : "M_AXI_GP0"}] \
           Slave /vdla/$slave_if intc_ip {New AXI Interconnect}] [get_bd_intf_pins vdla/$slave_if]
# DRAM: accelerator AXI master -> interconnect -> PS HP/ACP slave port.
apply_bd_automation -rule xilinx.com:bd_rule:axi4 \
  -config [list Clk_master $clk Clk_slave $clk Clk_xbar $clk Master /vdla/$master_if Slave /$slave \
           intc_ip {New AXI Interconnect}] [get_bd_intf_pins $slave]
assign_bd_address
validate_bd_design
save_bd_design

make_wrapper -files [get_files vdla.bd] -top
add_files -norecurse $out_dir/vivado_$config/vdla_$config.gen/sources_1/bd/vdla/hdl/vdla_wrapper.v
set_property top vdla_wrapper [current_fileset]
launch_runs impl_1 -to_step write_bitstream -jobs 4
wait_on_run impl_1
if {[get_property PROGRESS [get_runs impl_1]] ne "100%"} {
  puts stderr "vivado_bd.tcl: implementation of $config did not complete (see $out_dir/vivado_$config)"
  exit 1
}
file copy -force $out_dir/vivado_$config/vdla_$config.runs/impl_1/vdla_wrapper.bit $out_dir/vdla_$config.bit
file copy -force $out_dir/vivado_$config/vdla_$config.gen/sources_1/bd/vdla/hw_handoff/vdla.hwh $out_dir/vdla_$config.hwh
puts "vivado_bd.tcl: wrote $out_dir/vdla_$config.bit and $out_dir/vdla_$config.hwh ($board, $part, $clock_mhz MHz, $port port)"
exit 0
