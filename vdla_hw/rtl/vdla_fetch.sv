// Fetch: reads the instruction stream from DRAM in bursts into a small
// instruction buffer and dispatches instructions in program order to the
// command queue of the module that executes each; stalls while that queue is
// full. Bursts are only requested for buffer space that is free, so read data
// is always accepted and never blocks the shared read channel. Checks every
// instruction's static legality and the FINISH rules before dispatch.
module vdla_fetch (
    input  logic         clk,
    input  logic         rst,
    input  logic         start,
    input  logic [31:0]  insn_addr,
    input  logic [31:0]  insn_count,
    input  logic         halt,
    // AXI read (ID 0)
    output logic         ar_valid,
    input  logic         ar_ready,
    output logic [31:0]  ar_addr,
    output logic [7:0]   ar_len,
    input  logic         r_valid,
    input  logic [vdla_pkg::AXI_DATA_BITS-1:0] r_data,
    input  logic         r_last,
    input  logic [1:0]   r_resp,
    // Dispatch: {index, instruction} to command queue `q_sel`.
    input  logic [2:0]   q_full,
    output logic [2:0]   q_push,
    output logic [159:0] q_data,
    output logic         dispatched_all,
    // Errors and status
    output logic         err_valid,
    output logic [7:0]   err_code,
    output logic [31:0]  err_index,
    output logic [31:0]  err_info,
    output logic [31:0]  index,  // next instruction to dispatch
    output logic [3:0]   state
);
  localparam int AXI_BYTES = vdla_pkg::AXI_DATA_BITS / 8;
  localparam int BEATS_PER_INSN = vdla_pkg::INSN_BITS / vdla_pkg::AXI_DATA_BITS;
  localparam int BUF = 16;  // instructions buffered
  localparam int MAX_BURST_INSNS = 8;

  initial begin
    if (vdla_pkg::AXI_DATA_BITS > vdla_pkg::INSN_BITS) $error("fetch assumes an AXI beat of at most one instruction");
  end

  logic active;
  logic [31:0] count;
  logic [31:0] req_idx;  // next instruction to request
  logic [31:0] rcv_idx;  // next instruction to arrive
  logic [31:0] disp_idx;  // next instruction to dispatch
  logic [127:0] ibuf[BUF];
  logic [127:0] assemble;
  logic [$clog2(BEATS_PER_INSN+1)-1:0] beat;

  // ---- requests ----
  wire [31:0] remaining = count - req_idx;
  wire [31:0] in_buffer = req_idx - disp_idx;  // requested, not yet dispatched
  wire [31:0] next_addr = insn_addr + (req_idx << 4);
  wire [31:0] to_4k = (32'd4096 - {20'd0, next_addr[11:0]}) >> 4;
  logic [31:0] burst;
  always_comb begin
    burst = remaining;
    if (burst > MAX_BURST_INSNS) burst = MAX_BURST_INSNS;
    if (burst > to_4k) burst = to_4k;
  end
  wire can_request = active && !halt && remaining != 0 && !ar_valid && in_buffer + burst <= BUF;

  always_ff @(posedge clk) begin
    if (rst) begin
      ar_valid <= 1'b0;
    end else if (ar_valid && ar_ready) begin
      ar_valid <= 1'b0;
    end else if (can_request) begin
      ar_valid <= 1'b1;
      ar_addr  <= next_addr;
      ar_len   <= 8'(burst * BEATS_PER_INSN - 1);
    end
  end

  // ---- data ----
  logic [127:0] assembled;  // the beats so far, the newest at the top
  if (BEATS_PER_INSN == 1) begin : g_one_beat
    assign assembled = 128'(r_data);
  end else begin : g_beats
    assign assembled = {r_data, assemble[127:vdla_pkg::AXI_DATA_BITS]};
  end
  wire insn_arrives = r_valid && beat == $bits(beat)'(BEATS_PER_INSN - 1);

  // ---- dispatch ----
  wire [127:0] head = ibuf[disp_idx[$clog2(BUF)-1:0]];
  wire have_head = rcv_idx != disp_idx;
  logic [1:0] head_module;
  logic head_is_finish;
  logic [7:0] head_error;
  vdla_insn_check check (
      .insn(head),
      .module_id(head_module),
      .is_finish(head_is_finish),
      .error(head_error)
  );
  wire is_last = disp_idx == count - 1;
  logic [7:0] dispatch_error;
  always_comb begin
    dispatch_error = head_error;
    if (dispatch_error == vdla_pkg::E_NONE) begin
      if (head_is_finish && !is_last) dispatch_error = vdla_pkg::E_FINISH_NOT_LAST;
      else if (!head_is_finish && is_last) dispatch_error = vdla_pkg::E_NO_FINISH;
    end
  end
  wire target_full = q_full[head_module];
  wire dispatch = active && !halt && have_head && dispatch_error == vdla_pkg::E_NONE && !target_full;

  assign q_push = dispatch ? (3'b001 << head_module) : 3'b000;
  assign q_data = {disp_idx, head};
  assign dispatched_all = !active;
  assign index = disp_idx;

  always_ff @(posedge clk) begin
    err_valid <= 1'b0;
    if (rst) begin
      active <= 1'b0;
      beat <= '0;
    end else begin
      if (start) begin
        count <= insn_count;
        req_idx <= '0;
        rcv_idx <= '0;
        disp_idx <= '0;
        beat <= '0;
        active <= insn_count != 0;
        if (insn_count == 0) begin
          err_valid <= 1'b1;
          err_code  <= vdla_pkg::E_EMPTY;
          err_index <= '0;
          err_info  <= '0;
        end
      end else begin
        if (ar_valid && ar_ready) req_idx <= req_idx + ((32'(ar_len) + 1) / BEATS_PER_INSN);
        if (r_valid) begin
          assemble <= assembled;
          beat <= insn_arrives ? '0 : beat + 1'b1;
          if (insn_arrives) begin
            ibuf[rcv_idx[$clog2(BUF)-1:0]] <= assembled;
            rcv_idx <= rcv_idx + 1;
          end
          if (r_resp != 2'b00 && active) begin
            err_valid <= 1'b1;
            err_code  <= vdla_pkg::E_AXI_READ;
            err_index <= rcv_idx;
            err_info  <= insn_addr + (rcv_idx << 4);
          end
        end
        if (active && have_head && dispatch_error != vdla_pkg::E_NONE && !halt) begin
          err_valid <= 1'b1;
          err_code  <= dispatch_error;
          err_index <= disp_idx;
          err_info  <= '0;
        end
        if (dispatch) begin
          disp_idx <= disp_idx + 1;
          if (is_last) active <= 1'b0;
        end
      end
    end
  end

  always_comb begin
    if (!active) state = vdla_pkg::S_FETCH_DONE;
    else if (!have_head) state = vdla_pkg::S_FETCH_WAIT_DRAM;
    else if (target_full) state = vdla_pkg::S_FETCH_WAIT_QUEUE;
    else state = vdla_pkg::S_BUSY;
  end
  // Run-time checks (simulation only: synthesis defines SYNTHESIS, and the fast
  // cycle model defines VDLA_NO_ASSERTIONS). See docs/hardware.md, "Assertions".
`ifndef SYNTHESIS
`ifndef VDLA_NO_ASSERTIONS
  always @(posedge clk) begin
    if (!rst && ar_valid) begin
      assert (32'(ar_len) < MAX_BURST_INSNS * BEATS_PER_INSN)
      else $error("vdla_fetch: burst of %0d beats above %0d", 32'(ar_len) + 1, MAX_BURST_INSNS * BEATS_PER_INSN);
      assert (32'(ar_addr[11:0]) + (32'(ar_len) + 1) * AXI_BYTES <= 4096)
      else $error("vdla_fetch: burst at 0x%08x of %0d beats crosses 4 KiB", ar_addr, 32'(ar_len) + 1);
    end
  end
`endif
`endif
endmodule
