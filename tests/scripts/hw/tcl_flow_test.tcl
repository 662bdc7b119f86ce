# Checks the Vivado/Vitis HLS Tcl of scripts/hw without the vendor tools:
# each script is sourced in a fresh interpreter in which every command that
# plain tclsh lacks (create_project, set_part, apply_bd_automation, ...) is
# recorded instead of run, so the test sees the sequence of tool commands and
# their arguments (part, clock, ports, files) and not only that the script
# parses. Expected values come from the config JSON files, not from this file.
#
#   tclsh tcl_flow_test.tcl REPO_ROOT
set root [lindex $::argv 0]
set failures 0
proc fail {msg} {
  global failures
  incr failures
  puts "FAIL: $msg"
}

# The target of a config JSON, read with a regexp (tclsh has no JSON parser).
proc target_of {config} {
  global root
  set fd [open $root/vdla_hw/config/$config.json r]
  set text [read $fd]
  close $fd
  regexp {"part":\s*"([^"]+)"} $text -> part
  regexp {"board":\s*"([^"]+)"} $text -> board
  regexp {"clock_mhz":\s*([0-9.]+)} $text -> clock
  return [list $part $board $clock]
}

# Sources `script` with ::argv = `argv`; returns {exit_code log}. The log is
# one entry per recorded tool command. `preamble` runs first in the fresh
# interpreter (to define a tool command that a script inspects or wraps).
proc run_script {script argv {preamble {}}} {
  set i [interp create]
  $i eval {
    set ::log {}
    rename exit _exit
    proc exit {{code 0}} { return -code error -errorcode [list VDLA_EXIT $code] "exit $code" }
    rename file _file
    # Filesystem effects of the flows are recorded; queries run for real.
    proc file {sub args} {
      if {$sub in {copy delete mkdir rename}} { lappend ::log [concat file $sub $args]; return }
      return [_file $sub {*}$args]
    }
    proc unknown {args} {
      lappend ::log $args
      switch -- [lindex $args 0] {
        get_property { if {[lindex $args 1] eq "PROGRESS"} { return "100%" } }
        glob { return {} }
      }
      return [lindex $args end]
    }
  }
  $i eval $preamble
  $i eval [list set ::argv $argv]
  $i eval [list set ::argc [llength $argv]]
  set code 0
  if {[catch {$i eval [list source $script]} msg opts]} {
    set ec [dict get $opts -errorcode]
    if {[lindex $ec 0] eq "VDLA_EXIT"} {
      set code [lindex $ec 1]
    } else {
      set code error
      puts "script error in [file tail $script]: $msg"
    }
  }
  set log [$i eval {set ::log}]
  interp delete $i
  return [list $code $log]
}

# The first logged command whose words start with `prefix` (a list).
proc find_cmd {log prefix} {
  foreach c $log {
    if {[lrange $c 0 [expr {[llength $prefix] - 1}]] eq $prefix} { return $c }
  }
  return ""
}
# Some logged command starting with `prefix` matches the glob `pattern`.
proc expect_cmd {what log prefix {pattern *}} {
  set seen {}
  foreach c $log {
    if {[lrange $c 0 [expr {[llength $prefix] - 1}]] ne $prefix} continue
    if {[string match $pattern $c]} return
    lappend seen $c
  }
  if {$seen eq ""} { fail "$what: no '$prefix' command"; return }
  fail "$what: no '$prefix' command matches '$pattern' (saw: [join $seen {; }])"
}
proc expect_order {what log first second} {
  set a -1; set b -1; set n 0
  foreach c $log {
    if {$a < 0 && [lindex $c 0] eq $first} { set a $n }
    if {$b < 0 && [lindex $c 0] eq $second} { set b $n }
    incr n
  }
  if {$a < 0 || $b < 0 || $a > $b} { fail "$what: '$first' must come before '$second'" }
}

set hls $root/scripts/hw/hls.tcl
set bd $root/scripts/hw/vivado_bd.tcl
set rtl $root/scripts/hw/rtl_package.tcl

# ---- hls.tcl: every HLS source, the config's part and clock, synthesis, export.
foreach config {pynq ultra96} {
  lassign [target_of $config] part board clock
  lassign [run_script $hls [list $config $part $clock $root/vdla_hw/hls /gen/$config $root/vdla_hw/include /out]] code log
  if {$code != 0} { fail "hls.tcl $config exited with $code" }
  expect_cmd "hls.tcl $config" $log set_part "set_part $part"
  set period [format %.3f [expr {1000.0 / $clock}]]
  expect_cmd "hls.tcl $config" $log create_clock "create_clock -period $period -name default"
  expect_cmd "hls.tcl $config" $log set_top "set_top vdla_top"
  set added {}
  foreach c $log {
    if {[lindex $c 0] eq "add_files" && [lindex $c 1] ne "-tb"} {
      set f [lindex $c 1]
      lappend added [file tail $f]
      if {![file exists $f]} { fail "hls.tcl adds $f, which does not exist" }
      if {![string match "*-I/gen/$config*" [lindex $c 3]]} { fail "hls.tcl: $f compiled without the generated parameters" }
    }
  }
  # Every synthesizable source of vdla_hw/hls is in the project.
  foreach f [glob -tails -directory $root/vdla_hw/hls *.cpp] {
    if {$f ni $added} { fail "hls.tcl does not add vdla_hw/hls/$f" }
  }
  expect_order "hls.tcl $config" $log set_part csynth_design
  expect_order "hls.tcl $config" $log csynth_design export_design
  expect_cmd "hls.tcl $config" $log export_design "*-format ip_catalog*-ipname vdla_top*"
  if {[find_cmd $log csim_design] ne ""} { fail "hls.tcl runs csim_design without a test bench" }
}
lassign [run_script $hls [list pynq xc7z020clg400-1 100 $root/vdla_hw/hls /gen $root/vdla_hw/include /out tb.cpp]] code log
expect_cmd "hls.tcl with a test bench" $log {add_files -tb} "add_files -tb tb.cpp*"
expect_order "hls.tcl with a test bench" $log csim_design csynth_design
lassign [run_script $hls {pynq}] code log
if {$code != 2} { fail "hls.tcl with missing arguments must exit 2, got $code" }

# ---- vivado_bd.tcl: Zynq-7000 and UltraScale+ block designs, HP and ACP.
foreach {config port} {pynq hp pynq acp zcu104 hp ultra96 acp} {
  lassign [target_of $config] part board clock
  set what "vivado_bd.tcl $config $port"
  lassign [run_script $bd [list $config $part $board $clock /ip vdla_top s_axi_control m_axi_data /out $port]] code log
  if {$code != 0} { fail "$what exited with $code" }
  expect_cmd $what $log create_project "create_project -force vdla_$config * -part $part"
  expect_cmd $what $log {create_bd_cell -type ip -vlnv vdla.dev:vdla:vdla_top:1.0} "*vdla"
  if {[string match xczu* $part]} {
    expect_cmd $what $log {create_bd_cell -type ip -vlnv xilinx.com:ip:zynq_ultra_ps_e:3.4}
    expect_cmd $what $log set_property "*PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ $clock*"
    set slave [expr {$port eq "hp" ? "S_AXI_HP0_FPD" : "S_AXI_ACP_FPD"}]
  } else {
    expect_cmd $what $log {create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7:5.5}
    expect_cmd $what $log set_property "*PCW_FPGA0_PERIPHERAL_FREQMHZ $clock*"
    set slave [expr {$port eq "hp" ? "S_AXI_HP0" : "S_AXI_ACP"}]
  }
  set master_rule ""; set slave_rule ""
  foreach c $log {
    if {[lindex $c 0] eq "apply_bd_automation" && [lindex $c 2] eq "xilinx.com:bd_rule:axi4"} {
      set cfg [lindex $c 4]
      if {[string match "*Slave /vdla/s_axi_control*" $cfg]} { set slave_rule $cfg }
      if {[string match "*Master /vdla/m_axi_data*" $cfg]} { set master_rule $cfg }
    }
  }
  if {$slave_rule eq ""} { fail "$what: the PS master is not connected to the accelerator's AXI-Lite slave" }
  if {![string match "*Slave /ps/$slave*" $master_rule]} { fail "$what: accelerator master not on ps/$slave: '$master_rule'" }
  expect_order $what $log validate_bd_design launch_runs
  expect_cmd $what $log launch_runs "launch_runs impl_1 -to_step write_bitstream*"
  expect_cmd $what $log {file copy} "*vdla_$config.bit"
  set hwh 0
  foreach c $log { if {[string match "file copy*vdla.hwh *vdla_$config.hwh" $c]} { set hwh 1 } }
  if {!$hwh} { fail "$what: no .hwh written" }
}
lassign [run_script $bd {pynq xc7z020clg400-1 pynq-z1 100 /ip vdla_top s m /out pcie}] code log
if {$code != 2} { fail "vivado_bd.tcl with port 'pcie' must exit 2, got $code" }

# ---- rtl_package.tcl: the package first, every RTL module, the IP saved.
lassign [target_of pynq] part board clock
lassign [run_script $rtl [list pynq $part /gen/pynq/vdla_pkg.sv $root/vdla_hw/rtl /out]] code log
if {$code != 0} { fail "rtl_package.tcl exited with $code" }
expect_cmd "rtl_package.tcl" $log create_project "*-part $part"
set files {}
foreach c $log { if {[lindex $c 0] eq "add_files"} { lappend files [file tail [lindex $c end]] } }
if {[lindex $files 0] ne "vdla_pkg.sv"} { fail "rtl_package.tcl must add the generated package first, got $files" }
foreach f [glob -tails -directory $root/vdla_hw/rtl *.sv] {
  if {$f ni $files} { fail "rtl_package.tcl does not add vdla_hw/rtl/$f" }
}
expect_cmd "rtl_package.tcl" $log {set_property top} "set_property top vdla_top *"
expect_order "rtl_package.tcl" $log ipx::package_project ipx::save_core

# ---- xrt_hls.tcl: hls.tcl unchanged but for 64-bit AXI master addresses.
set xrt_hls $root/scripts/hw/xrt_hls.tcl
set record_ci {proc config_interface {args} { lappend ::log [concat config_interface $args] }}
lassign [target_of zcu104] part board clock
lassign [run_script $xrt_hls [list zcu104 $part $clock $root/vdla_hw/hls /gen/zcu104 $root/vdla_hw/include /out tb.cpp] \
  $record_ci] code log
if {$code != 0} { fail "xrt_hls.tcl exited with $code" }
expect_cmd "xrt_hls.tcl" $log config_interface "config_interface -m_axi_addr64=true"
foreach c $log {
  if {[string match "*m_axi_addr64=false*" $c]} { fail "xrt_hls.tcl keeps 32-bit addresses: $c" }
}
expect_cmd "xrt_hls.tcl" $log set_part "set_part $part"
expect_cmd "xrt_hls.tcl" $log export_design "*-ipname vdla_top*-output /out/ip/vdla_hls_zcu104.zip"
expect_order "xrt_hls.tcl" $log config_interface csynth_design
lassign [run_script $xrt_hls [list zcu104 $part $clock $root/vdla_hw/hls /gen $root/vdla_hw/include /out]] code log
if {$code != 2} { fail "xrt_hls.tcl outside vitis_hls (no config_interface) must exit 2, got $code" }

# ---- xo_package.tcl: user-managed kernels from the HLS IP and the wrapped RTL.
set xo_tcl $root/scripts/hw/xo_package.tcl
set scratch [file join [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}] vdla_xo_test_[pid]]
file mkdir $scratch
set xo $scratch/k.xo
close [open $xo w]
lassign [run_script $xo_tcl [list hls zcu104 $part /ip/hls_ip $xo]] code log
if {$code != 0} { fail "xo_package.tcl hls exited with $code" }
expect_cmd "xo_package.tcl hls" $log package_xo \
  "package_xo -kernel_name vdla_top -ctrl_protocol user_managed -ip_directory /ip/hls_ip -xo_path $xo *"
if {[find_cmd $log create_project] ne ""} { fail "xo_package.tcl hls must package the HLS IP as it is" }

set wrapper $root/scripts/hw/xrt/vdla_xrt_rtl.sv
lassign [run_script $xo_tcl [list rtl zcu104 $part /gen/zcu104/vdla_pkg.sv $root/vdla_hw/rtl $wrapper $xo]] code log
if {$code != 0} { fail "xo_package.tcl rtl exited with $code" }
expect_cmd "xo_package.tcl rtl" $log create_project "*-part $part"
set files {}
foreach c $log { if {[lindex $c 0] eq "add_files"} { lappend files [file tail [lindex $c end]] } }
if {[lindex $files 0] ne "vdla_pkg.sv"} { fail "xo_package.tcl must add the generated package first, got $files" }
foreach f [concat [glob -tails -directory $root/vdla_hw/rtl *.sv] vdla_xrt_rtl.sv] {
  if {$f ni $files} { fail "xo_package.tcl rtl does not add $f" }
}
expect_cmd "xo_package.tcl rtl" $log {set_property top} "set_property top vdla_xrt_rtl *"
# The interfaces it associates are the wrapper's ports.
set fd [open $wrapper r]; set wrapper_text [read $fd]; close $fd
foreach busif {s_axi_control m_axi_gmem} {
  expect_cmd "xo_package.tcl rtl" $log {ipx::associate_bus_interfaces -busif} "*-busif $busif -clock ap_clk*"
  if {![regexp "\\m${busif}_araddr\\M" $wrapper_text]} { fail "the wrapper has no ${busif} interface" }
}
if {![regexp {output logic \[63:0\] m_axi_gmem_araddr} $wrapper_text]} { fail "the wrapper's master is not 64-bit" }
expect_cmd "xo_package.tcl rtl" $log set_property "set_property vitis_drc {ctrl_protocol user_managed} *"
expect_order "xo_package.tcl rtl" $log ipx::package_project ipx::save_core
expect_order "xo_package.tcl rtl" $log ipx::save_core package_xo
expect_cmd "xo_package.tcl rtl" $log package_xo "package_xo -kernel_name vdla_xrt_rtl -ctrl_protocol user_managed *"
file delete $xo
lassign [run_script $xo_tcl [list hls zcu104 $part /ip/hls_ip $xo]] code log
if {$code != 1} { fail "xo_package.tcl must exit 1 when package_xo writes no .xo, got $code" }
lassign [run_script $xo_tcl [list hls zcu104 $part /ip]] code log
if {$code != 2} { fail "xo_package.tcl with missing arguments must exit 2, got $code" }
lassign [run_script $xo_tcl [list vhdl zcu104 $part /ip $xo]] code log
if {$code != 2} { fail "xo_package.tcl with flow 'vhdl' must exit 2, got $code" }
file delete -force $scratch

if {$failures} {
  puts "$failures failure(s)"
  exit 1
}
puts "all Tcl flow checks passed"
exit 0
