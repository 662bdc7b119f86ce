// The load module: executes LOAD WGT and LOAD INP in order, writing the WGT and
// INP memories through a 2-D read engine on AXI ID 1.
module vdla_load #(
    // Write-enable granularity of the INP and WGT memories: one AXI beat.
    parameter int INP_LANE = (vdla_pkg::INP_ENTRY_BITS < vdla_pkg::AXI_DATA_BITS) ?
        vdla_pkg::INP_ENTRY_BITS : vdla_pkg::AXI_DATA_BITS,
    parameter int WGT_LANE = (vdla_pkg::WGT_ENTRY_BITS < vdla_pkg::AXI_DATA_BITS) ?
        vdla_pkg::WGT_ENTRY_BITS : vdla_pkg::AXI_DATA_BITS
) (
    input  logic         clk,
    input  logic         rst,
    input  logic         halt,
    input  logic         q_empty,
    input  logic [159:0] q_head,
    output logic         q_pop,
    input  logic         next_avail,  // compute->load has a token
    input  logic         next_room,   // load->compute has room
    output logic         pop_next,
    output logic         push_next,
    // AXI read
    output logic         ar_valid,
    input  logic         ar_ready,
    output logic [31:0]  ar_addr,
    output logic [7:0]   ar_len,
    output logic [2:0]   ar_size,
    input  logic         r_valid,
    input  logic [vdla_pkg::AXI_DATA_BITS-1:0] r_data,
    input  logic         r_last,
    input  logic [1:0]   r_resp,
    // SRAM write ports
    output logic [vdla_pkg::INP_ENTRY_BITS/INP_LANE-1:0] inp_we,
    output logic [vdla_pkg::INP_IDX_BITS-1:0] inp_waddr,
    output logic [INP_LANE-1:0] inp_wdata,  // one beat, written to every enabled lane
    output logic [vdla_pkg::WGT_ENTRY_BITS/WGT_LANE-1:0] wgt_we,
    output logic [vdla_pkg::WGT_IDX_BITS-1:0] wgt_waddr,
    output logic [WGT_LANE-1:0] wgt_wdata,
    // status
    output logic         err_valid,
    output logic [7:0]   err_code,
    output logic [31:0]  err_info,
    output logic [31:0]  index,
    output logic [3:0]   state,
    output logic         wait_dram
);
  logic start, done;
  logic [127:0] insn;
  logic unused_pop_prev, unused_push_prev;
  vdla_sequencer seq (
      .clk, .rst, .halt, .q_empty, .q_head, .q_pop,
      .prev_avail(1'b0), .next_avail, .prev_room(1'b0), .next_room,
      .pop_prev(unused_pop_prev), .pop_next, .push_prev(unused_push_prev), .push_next,
      .start, .insn, .index, .done, .state
  );

  // ---- decode and SRAM range check (one cycle after start) ----
  wire [2:0] memory = insn[vdla_pkg::LOAD_MEMORY_LSB+:3];
  wire is_wgt = memory == 3'(vdla_pkg::MEM_WGT);
  wire [31:0] sram_base = 32'(insn[vdla_pkg::LOAD_SRAM_BASE_LSB+:vdla_pkg::LOAD_SRAM_BASE_W]);
  wire [31:0] y_size = 32'(insn[vdla_pkg::LOAD_Y_SIZE_LSB+:vdla_pkg::LOAD_Y_SIZE_W]);
  wire [31:0] x_size = 32'(insn[vdla_pkg::LOAD_X_SIZE_LSB+:vdla_pkg::LOAD_X_SIZE_W]);
  wire [vdla_pkg::LOAD_Y_PAD_TOP_W-1:0] pad_top = insn[vdla_pkg::LOAD_Y_PAD_TOP_LSB+:vdla_pkg::LOAD_Y_PAD_TOP_W];
  wire [vdla_pkg::LOAD_Y_PAD_BOTTOM_W-1:0] pad_bottom = insn[vdla_pkg::LOAD_Y_PAD_BOTTOM_LSB+:vdla_pkg::LOAD_Y_PAD_BOTTOM_W];
  wire [vdla_pkg::LOAD_X_PAD_LEFT_W-1:0] pad_left = insn[vdla_pkg::LOAD_X_PAD_LEFT_LSB+:vdla_pkg::LOAD_X_PAD_LEFT_W];
  wire [vdla_pkg::LOAD_X_PAD_RIGHT_W-1:0] pad_right = insn[vdla_pkg::LOAD_X_PAD_RIGHT_LSB+:vdla_pkg::LOAD_X_PAD_RIGHT_W];
  logic [63:0] block_end;
  vdla_load_range range (
      .sram_base, .y_size, .x_size, .pad_top(32'(pad_top)), .pad_bottom(32'(pad_bottom)), .pad_left(32'(pad_left)),
      .pad_right(32'(pad_right)), .block_end
  );
  wire [63:0] depth = is_wgt ? 64'(vdla_pkg::WGT_DEPTH) : 64'(vdla_pkg::INP_DEPTH);

  logic checking, engine_start;
  always_ff @(posedge clk) begin
    err_valid <= 1'b0;
    engine_start <= 1'b0;
    if (rst) begin
      checking <= 1'b0;
    end else begin
      checking <= start;
      if (checking) begin
        if (block_end > depth) begin
          err_valid <= 1'b1;
          err_code  <= vdla_pkg::E_SRAM_RANGE;
          err_info  <= block_end[31:0];
        end else engine_start <= 1'b1;
      end
      if (x_err_valid) begin
        err_valid <= 1'b1;
        err_code  <= x_err_code;
        err_info  <= x_err_info;
      end
    end
  end

  logic wr_valid, wr_zero, x_busy, x_err_valid;
  logic [31:0] wr_addr, x_err_info;
  logic [7:0] wr_beat, x_err_code;
  logic [vdla_pkg::AXI_DATA_BITS-1:0] wr_data;
  vdla_xfer_read xfer (
      .clk, .rst, .start(engine_start),
      .sram_base, .dram_base(32'(insn[vdla_pkg::LOAD_DRAM_BASE_LSB+:vdla_pkg::LOAD_DRAM_BASE_W])),
      .y_size, .x_size, .x_stride(32'(insn[vdla_pkg::LOAD_X_STRIDE_LSB+:vdla_pkg::LOAD_X_STRIDE_W])),
      .pad_top, .pad_bottom, .pad_left, .pad_right,
      .entry_log2(is_wgt ? 4'($clog2(vdla_pkg::WGT_ENTRY_BITS / 8)) : 4'($clog2(vdla_pkg::INP_ENTRY_BITS / 8))),
      .ar_valid, .ar_ready, .ar_addr, .ar_len, .ar_size, .r_valid, .r_data, .r_last, .r_resp,
      .wr_valid, .wr_zero, .wr_addr, .wr_beat, .wr_data,
      .busy(x_busy), .done, .err_valid(x_err_valid), .err_code(x_err_code), .err_info(x_err_info), .wait_dram
  );

  vdla_beat_writer #(.ENTRY_BITS(vdla_pkg::INP_ENTRY_BITS), .LANE(INP_LANE)) inp_writer (
      .valid(wr_valid && !is_wgt), .zero(wr_zero), .beat(wr_beat), .data(wr_data), .we(inp_we), .wdata(inp_wdata)
  );
  vdla_beat_writer #(.ENTRY_BITS(vdla_pkg::WGT_ENTRY_BITS), .LANE(WGT_LANE)) wgt_writer (
      .valid(wr_valid && is_wgt), .zero(wr_zero), .beat(wr_beat), .data(wr_data), .we(wgt_we), .wdata(wgt_wdata)
  );
  assign inp_waddr = wr_addr[vdla_pkg::INP_IDX_BITS-1:0];
  assign wgt_waddr = wr_addr[vdla_pkg::WGT_IDX_BITS-1:0];
endmodule
