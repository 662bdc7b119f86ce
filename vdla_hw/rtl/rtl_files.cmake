# The RTL sources in dependency order (packages first). The generated
# vdla_pkg.sv of a config (VDLA_GENERATED_DIR/<config>/vdla_pkg.sv) precedes
# them; it is the only place parameters come from.
set(VDLA_RTL_DIR ${CMAKE_CURRENT_LIST_DIR})
set(VDLA_RTL_SOURCES
  ${VDLA_RTL_DIR}/vdla_ram.sv
  ${VDLA_RTL_DIR}/vdla_cmd_queue.sv
  ${VDLA_RTL_DIR}/vdla_token_queue.sv
  ${VDLA_RTL_DIR}/vdla_sequencer.sv
  ${VDLA_RTL_DIR}/vdla_insn_check.sv
  ${VDLA_RTL_DIR}/vdla_fetch.sv
  ${VDLA_RTL_DIR}/vdla_load_range.sv
  ${VDLA_RTL_DIR}/vdla_xfer_read.sv
  ${VDLA_RTL_DIR}/vdla_beat_writer.sv
  ${VDLA_RTL_DIR}/vdla_load.sv
  ${VDLA_RTL_DIR}/vdla_loop_gen.sv
  ${VDLA_RTL_DIR}/vdla_mul_pair_pkg.sv
  ${VDLA_RTL_DIR}/vdla_gemm.sv
  ${VDLA_RTL_DIR}/vdla_compute.sv
  ${VDLA_RTL_DIR}/vdla_store.sv
  ${VDLA_RTL_DIR}/vdla_axi_read_arbiter.sv
  ${VDLA_RTL_DIR}/vdla_ctrl_regs.sv
  ${VDLA_RTL_DIR}/vdla_top.sv)
