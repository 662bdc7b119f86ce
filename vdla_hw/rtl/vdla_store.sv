// The store module: executes STORE OUT in order. OUT entries are read in
// order (the SRAM block is packed) into a two-entry buffer and sent as write
// beats; each DRAM row becomes INCR bursts (at most MAX_BURST beats, never
// across 4 KiB, at most MAX_OUTSTANDING awaiting their response). The
// instruction completes when every write response is back, so the data is in
// DRAM before the store pushes its token or the run ends.
//
// STORE INP (extension inp_writeback): the same reads, but each entry is
// written whole into INP at `dram_base` (an INP index) plus the row's
// x_stride, an entry a cycle, in the cycles in which the load module does
// not write INP (it cannot wait: its beats arrive from the AXI read
// channel). Each row is range-checked before its first write; INP entries
// written before an error are on chip only, so what DRAM holds after the
// error is what fsim leaves.
module vdla_store (
    input  logic         clk,
    input  logic         rst,
    input  logic         halt,
    input  logic         q_empty,
    input  logic [159:0] q_head,
    output logic         q_pop,
    input  logic         prev_avail,  // compute->store has a token
    input  logic         prev_room,   // store->compute has room
    output logic         pop_prev,
    output logic         push_prev,
    // AXI write
    output logic         aw_valid,
    input  logic         aw_ready,
    output logic [31:0]  aw_addr,
    output logic [7:0]   aw_len,
    output logic         w_valid,
    input  logic         w_ready,
    output logic [vdla_pkg::AXI_DATA_BITS-1:0] w_data,
    output logic         w_last,
    input  logic         b_valid,
    input  logic [1:0]   b_resp,
    // OUT read port
    output logic         out_re,
    output logic [vdla_pkg::OUT_IDX_BITS-1:0] out_raddr,
    input  logic [vdla_pkg::OUT_ENTRY_BITS-1:0] out_rdata,
    // INP write port (STORE INP), granted when the load module leaves it free
    input  logic         inp_busy,
    output logic         inp_we,
    output logic [vdla_pkg::INP_IDX_BITS-1:0] inp_waddr,
    output logic [vdla_pkg::OUT_ENTRY_BITS-1:0] inp_wdata,
    // status
    output logic         err_valid,
    output logic [7:0]   err_code,
    output logic [31:0]  err_info,
    output logic [31:0]  index,
    output logic [3:0]   state,
    output logic         wait_dram
);
  localparam int AXI = vdla_pkg::AXI_DATA_BITS;
  localparam int AXI_LOG2 = $clog2(AXI / 8);
  localparam int ENTRY_LOG2 = $clog2(vdla_pkg::OUT_ENTRY_BITS / 8);
  localparam int BPE = vdla_pkg::OUT_ENTRY_BITS / AXI;  // beats per entry
  localparam int MAX_BURST = vdla_pkg::AXI_MAX_BURST;
  localparam int MAX_OUTSTANDING = vdla_pkg::AXI_MAX_OUTSTANDING;

  initial begin
    if (vdla_pkg::OUT_ENTRY_BITS < AXI) $error("store assumes an OUT entry of at least one AXI beat");
  end

  logic start, done;
  logic [127:0] insn;
  logic unused_pop_next, unused_push_next;
  vdla_sequencer seq (
      .clk, .rst, .halt, .q_empty, .q_head, .q_pop,
      .prev_avail, .next_avail(1'b0), .prev_room, .next_room(1'b0),
      .pop_prev, .pop_next(unused_pop_next), .push_prev, .push_next(unused_push_next),
      .start, .insn, .index, .done, .state
  );

  wire [31:0] sram_base = 32'(insn[vdla_pkg::STORE_SRAM_BASE_LSB+:vdla_pkg::STORE_SRAM_BASE_W]);
  wire [31:0] dram_base = 32'(insn[vdla_pkg::STORE_DRAM_BASE_LSB+:vdla_pkg::STORE_DRAM_BASE_W]);
  wire [31:0] y_size = 32'(insn[vdla_pkg::STORE_Y_SIZE_LSB+:vdla_pkg::STORE_Y_SIZE_W]);
  wire [31:0] x_size = 32'(insn[vdla_pkg::STORE_X_SIZE_LSB+:vdla_pkg::STORE_X_SIZE_W]);
  wire [31:0] x_stride = 32'(insn[vdla_pkg::STORE_X_STRIDE_LSB+:vdla_pkg::STORE_X_STRIDE_W]);
  // Constant 0 without the extension, so that none of its logic is built.
  wire to_inp_insn = vdla_pkg::INP_WRITEBACK != 0 &&
      insn[vdla_pkg::STORE_MEMORY_LSB+:vdla_pkg::STORE_MEMORY_W] == vdla_pkg::STORE_MEMORY_W'(vdla_pkg::MEM_INP);
  // at the fields' widths (a 64-bit product would take ten DSPs)
  localparam int ENTRIES_W = vdla_pkg::STORE_Y_SIZE_W + vdla_pkg::STORE_X_SIZE_W;
  wire [63:0] entries = 64'(ENTRIES_W'(y_size) * ENTRIES_W'(x_size));
  wire [63:0] block_end = 64'(sram_base) + entries;

  logic checking, busy;
  // ---- address side ----
  logic aw_active;
  logic [31:0] aw_row;
  logic [39:0] aw_row_entry;
  logic [47:0] aw_next;
  logic [31:0] aw_beats_left;
  logic [3:0] outstanding;  // bursts issued, response not yet back
  wire [31:0] to_4k = (32'd4096 - {20'd0, aw_next[11:0]}) >> AXI_LOG2;
  logic [31:0] burst;
  always_comb begin
    burst = aw_beats_left;
    if (burst > MAX_BURST) burst = MAX_BURST;
    if (burst > to_4k) burst = to_4k;
  end
  wire aw_fire = aw_valid && aw_ready;
  // burst lengths handed from the address side to the data side
  logic [7:0] len_fifo[MAX_OUTSTANDING];
  logic [2:0] len_wr, len_rd;
  logic [2:0] len_count;
  wire can_issue = aw_active && aw_beats_left != 0 && !aw_valid && 32'(outstanding) < MAX_OUTSTANDING &&
      aw_next[47:32] == '0;

  // ---- data side ----
  logic [31:0] rd_entry, total;  // OUT entries read so far / to read
  logic [vdla_pkg::OUT_ENTRY_BITS-1:0] ebuf[2];
  logic ebuf_head, ebuf_tail;
  logic [1:0] ebuf_count;
  logic rd_pending;
  logic [31:0] beat_in_entry;
  logic [7:0] beat_in_burst;
  logic [31:0] sent_entries;
  wire [vdla_pkg::OUT_ENTRY_BITS-1:0] head_entry = ebuf[ebuf_head];
  logic to_inp;  // the running instruction is a STORE INP
  logic [63:0] inp_row, inp_at;  // INP index of the row's first entry / of the next write
  logic [31:0] inp_col;
  logic inp_row_checked;
  // The row's range check runs in the cycle before its first write.
  wire inp_row_bad = inp_row + 64'(x_size) > 64'(vdla_pkg::INP_DEPTH);
  assign inp_we = busy && to_inp && inp_row_checked && ebuf_count != 0 && !inp_busy;
  assign inp_waddr = vdla_pkg::INP_IDX_BITS'(inp_at);
  assign inp_wdata = head_entry;
  assign w_valid = busy && !to_inp && ebuf_count != 0 && len_count != 0;
  assign w_data = head_entry[beat_in_entry[$clog2(BPE+1)-1:0]*AXI+:AXI];
  assign w_last = beat_in_burst == len_fifo[len_rd[1:0]];
  wire w_fire = w_valid && w_ready;
  wire entry_sent = (w_fire && beat_in_entry == BPE - 1) || inp_we;
  // A read is issued when the buffer will have room for its entry: the
  // entries held and in flight, less the one leaving this cycle. (Counting
  // the leaving entry a cycle late let an entry of one beat go out only two
  // cycles in three.)
  wire issue_read = busy && rd_entry != total && 2'(ebuf_count) + 2'(rd_pending) - 2'(entry_sent) < 2'd2;
  assign out_re = issue_read;
  assign out_raddr = vdla_pkg::OUT_IDX_BITS'(sram_base + rd_entry);

  assign wait_dram = busy && !to_inp && !w_fire;

  always_ff @(posedge clk) begin
    err_valid <= 1'b0;
    done <= 1'b0;
    if (rst) begin
      checking <= 1'b0;
      busy <= 1'b0;
      aw_valid <= 1'b0;
      aw_active <= 1'b0;
      outstanding <= '0;
      len_wr <= '0;
      len_rd <= '0;
      len_count <= '0;
      ebuf_count <= '0;
      rd_pending <= 1'b0;
      to_inp <= 1'b0;
    end else begin
      checking <= start;
      if (checking) begin
        if (block_end > 64'(vdla_pkg::OUT_DEPTH)) begin
          err_valid <= 1'b1;
          err_code <= vdla_pkg::E_SRAM_RANGE;
          err_info <= block_end[31:0];
        end else begin
          busy <= 1'b1;
          to_inp <= to_inp_insn;
          inp_row <= 64'(dram_base);
          inp_at <= 64'(dram_base);
          inp_col <= '0;
          inp_row_checked <= 1'b0;
          aw_active <= !to_inp_insn && y_size != 0 && x_size != 0;
          aw_row <= '0;
          aw_row_entry <= 40'(dram_base);
          aw_beats_left <= '0;
          rd_entry <= '0;
          total <= entries[31:0];
          sent_entries <= '0;
          beat_in_entry <= '0;
          beat_in_burst <= '0;
          ebuf_head <= 1'b0;
          ebuf_tail <= 1'b0;
        end
      end
      if (busy) begin
        // ---- addresses ----
        if (aw_fire) aw_valid <= 1'b0;
        if (aw_active && aw_beats_left == 0) begin
          aw_next <= {8'd0, aw_row_entry} << ENTRY_LOG2;
          aw_beats_left <= x_size * BPE;
        end else if (aw_active && aw_next[47:32] != '0) begin
          err_valid <= 1'b1;
          err_code <= vdla_pkg::E_ADDR_OVERFLOW;
          err_info <= aw_row_entry[31:0];
          aw_active <= 1'b0;
        end else if (can_issue) begin
          aw_valid <= 1'b1;
          aw_addr <= aw_next[31:0];
          aw_len <= 8'(burst - 1);
          len_fifo[len_wr[1:0]] <= 8'(burst - 1);
          aw_next <= aw_next + (48'(burst) << AXI_LOG2);
          aw_beats_left <= aw_beats_left - burst;
          if (aw_beats_left == burst) begin
            aw_row <= aw_row + 1;
            aw_row_entry <= aw_row_entry + 40'(x_stride);
            if (aw_row + 1 == y_size) aw_active <= 1'b0;
          end
        end
        if (aw_fire) len_wr <= len_wr + 1;
        outstanding <= outstanding + 4'(can_issue) - 4'(b_valid);
        len_count <= len_count + 3'(aw_fire) - 3'(w_fire && w_last);
        if (b_valid && b_resp != 2'b00) begin
          err_valid <= 1'b1;
          err_code <= vdla_pkg::E_AXI_WRITE;
          err_info <= 32'(aw_row_entry << ENTRY_LOG2);  // byte address of the row
        end

        // ---- INP writes (STORE INP) ----
        if (to_inp && !inp_row_checked && sent_entries != total) begin
          if (inp_row_bad) begin
            err_valid <= 1'b1;
            err_code <= vdla_pkg::E_SRAM_RANGE;
            err_info <= 32'(inp_row + 64'(x_size));
          end else begin
            inp_row_checked <= 1'b1;
          end
        end
        if (inp_we) begin
          if (inp_col + 1 == x_size) begin
            inp_col <= '0;
            inp_row <= inp_row + 64'(x_stride);
            inp_at <= inp_row + 64'(x_stride);
            inp_row_checked <= 1'b0;
          end else begin
            inp_col <= inp_col + 1;
            inp_at <= inp_at + 1;
          end
        end

        // ---- data ----
        rd_pending <= issue_read;
        if (issue_read) rd_entry <= rd_entry + 1;
        if (rd_pending) begin
          ebuf[ebuf_tail] <= out_rdata;
          ebuf_tail <= !ebuf_tail;
        end
        ebuf_count <= ebuf_count + 2'(rd_pending) - 2'(entry_sent);
        if (w_fire) begin
          beat_in_entry <= (beat_in_entry == BPE - 1) ? '0 : beat_in_entry + 1;
          beat_in_burst <= w_last ? 8'd0 : beat_in_burst + 1'b1;
          if (w_last) len_rd <= len_rd + 1;
        end
        if (entry_sent) begin
          ebuf_head <= !ebuf_head;
          sent_entries <= sent_entries + 1;
        end

        if (!aw_active && !aw_valid && outstanding == 0 && sent_entries == total && !checking) begin
          busy <= 1'b0;
          done <= 1'b1;
        end
      end
    end
  end
  // Run-time checks (simulation only: synthesis defines SYNTHESIS, and the fast
  // cycle model defines VDLA_NO_ASSERTIONS). See docs/hardware.md, "Assertions".
`ifndef SYNTHESIS
`ifndef VDLA_NO_ASSERTIONS
  always @(posedge clk) begin
    if (!rst) begin
      if (aw_valid) begin
        assert (32'(aw_len) < MAX_BURST) else $error("vdla_store: burst of %0d beats above MAX_BURST %0d", 32'(aw_len) + 1, MAX_BURST);
        assert (32'(aw_addr[11:0]) + ((32'(aw_len) + 1) << AXI_LOG2) <= 4096)
        else $error("vdla_store: burst at 0x%08x of %0d beats crosses 4 KiB", aw_addr, 32'(aw_len) + 1);
      end
      assert (32'(outstanding) <= MAX_OUTSTANDING) else $error("vdla_store: %0d bursts outstanding, above %0d", outstanding, MAX_OUTSTANDING);
      assert (32'(len_count) <= MAX_OUTSTANDING) else $error("vdla_store: %0d burst lengths queued, above %0d", len_count, MAX_OUTSTANDING);
      assert (ebuf_count <= 2'd2) else $error("vdla_store: entry buffer holds %0d entries, above 2", ebuf_count);
      assert (!(b_valid && outstanding == 0)) else $error("vdla_store: write response with no burst outstanding");
    end
  end
`endif
`endif
endmodule
