// The 2-D DRAM -> SRAM transfer of a LOAD, shared by the load module (WGT, INP)
// and the compute module (UOP, ACC, ACC8).
//
// Three independent parts:
//  * the request side walks the data rows and issues INCR bursts (at most
//    MAX_BURST beats, never across a 4 KiB boundary, at most MAX_OUTSTANDING in
//    flight);
//  * the data side turns each arriving beat into an SRAM write at the entry it
//    belongs to (data is always accepted, so the shared read channel never
//    stalls on this module);
//  * the pad walker zero-fills the padding entries in the cycles the SRAM write
//    port is not taken by data.
// Data and padding write disjoint entries, so their order does not matter.
//
// An entry of at least one beat takes 2^(entry_log2 - beat_log2) full beats;
// a smaller entry (UOP) is read with narrow beats of the entry size, the entry
// sitting on the byte lanes of its address.
module vdla_xfer_read (
    input  logic        clk,
    input  logic        rst,
    input  logic        start,
    input  logic [31:0] sram_base,
    input  logic [31:0] dram_base,   // in entries
    input  logic [31:0] y_size,
    input  logic [31:0] x_size,
    input  logic [31:0] x_stride,
    input  logic [vdla_pkg::LOAD_Y_PAD_TOP_W-1:0] pad_top,
    input  logic [vdla_pkg::LOAD_Y_PAD_TOP_W-1:0] pad_bottom,
    input  logic [vdla_pkg::LOAD_Y_PAD_TOP_W-1:0] pad_left,
    input  logic [vdla_pkg::LOAD_Y_PAD_TOP_W-1:0] pad_right,
    input  logic [3:0]  entry_log2,  // log2(bytes of one DRAM entry)
    // AXI read
    output logic        ar_valid,
    input  logic        ar_ready,
    output logic [31:0] ar_addr,
    output logic [7:0]  ar_len,
    output logic [2:0]  ar_size,
    input  logic        r_valid,
    input  logic [vdla_pkg::AXI_DATA_BITS-1:0] r_data,
    input  logic        r_last,
    input  logic [1:0]  r_resp,
    // SRAM writes: a beat of data, or a whole zero entry
    output logic        wr_valid,
    output logic        wr_zero,
    output logic [31:0] wr_addr,
    output logic [7:0]  wr_beat,
    output logic [vdla_pkg::AXI_DATA_BITS-1:0] wr_data,
    output logic        busy,
    output logic        done,
    output logic        err_valid,
    output logic [7:0]  err_code,
    output logic [31:0] err_info,
    output logic        wait_dram
);
  localparam int AXI_BYTES = vdla_pkg::AXI_DATA_BITS / 8;
  localparam int AXI_LOG2 = $clog2(AXI_BYTES);
  localparam int MAX_BURST = vdla_pkg::AXI_MAX_BURST;
  localparam int MAX_OUTSTANDING = vdla_pkg::AXI_MAX_OUTSTANDING;

  // Latched instruction
  logic [31:0] ys, xs, stride;
  logic [vdla_pkg::LOAD_Y_PAD_TOP_W-1:0] pt, pl;  // the four pad fields share the config's pad_bits
  logic [31:0] rows, cols;
  logic [3:0] elog2, beat_log2, bpe_log2;

  // ---------------- request side ----------------
  logic ar_active;  // rows left to request
  logic [31:0] ar_row;
  logic [39:0] ar_row_entry;  // DRAM entry index of the row being requested
  logic [47:0] ar_next;  // byte address of the next burst
  logic [31:0] ar_beats_left;  // in the current row
  logic [3:0] outstanding;

  wire [47:0] row_byte_addr = {8'd0, ar_row_entry} << elog2;
  wire [31:0] to_4k = (32'd4096 - {20'd0, ar_next[11:0]}) >> beat_log2;
  logic [31:0] burst;
  always_comb begin
    burst = ar_beats_left;
    if (burst > MAX_BURST) burst = MAX_BURST;
    if (burst > to_4k) burst = to_4k;
  end
  wire ar_fire = ar_valid && ar_ready;
  wire can_issue = ar_active && ar_beats_left != 0 && (!ar_valid || ar_fire) &&
      32'(outstanding) + 32'(ar_valid) < MAX_OUTSTANDING && ar_next[47:32] == '0;

  // ---------------- data side ----------------
  logic [31:0] d_row, d_col, d_sram, d_row_start;
  logic [31:0] d_entry;  // DRAM entry index of the entry being received (for the lane)
  logic [31:0] d_row_entry;  // DRAM entry index of the first entry of the row
  logic [7:0] d_beat;
  wire [31:0] lane_mask = (32'd1 << (AXI_LOG2 - 32'(beat_log2))) - 1;  // entries per narrow beat - 1
  wire [31:0] lane = (32'(elog2) < AXI_LOG2) ? (d_entry & lane_mask) : 32'd0;
  wire entry_complete = d_beat == 8'((32'd1 << bpe_log2) - 1);
  wire data_done = d_row == ys || xs == 0;

  // ---------------- pad walker ----------------
  logic [31:0] p_row, p_col, p_sram;
  wire p_done = p_row == rows;
  wire p_data_row = p_row >= 32'(pt) && p_row < 32'(pt) + ys && xs != 0;
  wire p_at_data = p_data_row && p_col == 32'(pl);
  wire p_write = busy && !p_done && !r_valid && !p_at_data;
  wire p_step = busy && !p_done && !r_valid;

  assign wr_valid = (busy && r_valid) || p_write;
  assign wr_zero = !r_valid;
  assign wr_addr = r_valid ? d_sram : p_sram;
  assign wr_beat = r_valid ? d_beat : 8'd0;
  assign wr_data = r_data >> (lane << (elog2 + 3));
  assign ar_size = 3'(beat_log2);
  assign wait_dram = busy && !wr_valid && (outstanding != 0 || ar_valid || ar_active);

  wire all_done = busy && !ar_active && !ar_valid && outstanding == 0 && data_done && p_done;

  always_ff @(posedge clk) begin
    done <= 1'b0;
    err_valid <= 1'b0;
    if (rst) begin
      busy <= 1'b0;
      ar_valid <= 1'b0;
      ar_active <= 1'b0;
      outstanding <= '0;
    end else if (start) begin
      busy <= 1'b1;
      ys <= y_size;
      xs <= x_size;
      stride <= x_stride;
      pt <= pad_top;
      pl <= pad_left;
      rows <= 32'(pad_top) + y_size + 32'(pad_bottom);
      cols <= 32'(pad_left) + x_size + 32'(pad_right);
      elog2 <= entry_log2;
      beat_log2 <= (32'(entry_log2) < AXI_LOG2) ? entry_log2 : 4'(AXI_LOG2);
      bpe_log2 <= (32'(entry_log2) > AXI_LOG2) ? entry_log2 - 4'(AXI_LOG2) : 4'd0;
      // request side: the first row
      ar_active <= y_size != 0 && x_size != 0;
      ar_row <= '0;
      ar_row_entry <= 40'(dram_base);
      ar_beats_left <= '0;  // 0 = compute the row address next cycle
      // data side
      d_row <= '0;
      d_col <= '0;
      d_beat <= '0;
      d_entry <= dram_base;
      d_row_entry <= dram_base;
      d_row_start <= sram_base + 32'(pad_top) * (32'(pad_left) + x_size + 32'(pad_right)) + 32'(pad_left);
      d_sram <= sram_base + 32'(pad_top) * (32'(pad_left) + x_size + 32'(pad_right)) + 32'(pad_left);
      // pad walker
      // Nothing to zero-fill when a row has no entries.
      p_row <= (32'(pad_left) + x_size + 32'(pad_right) == 0) ? 32'(pad_top) + y_size + 32'(pad_bottom) : '0;
      p_col <= '0;
      p_sram <= sram_base;
    end else if (busy) begin
      // ---- requests ----
      if (ar_fire) ar_valid <= 1'b0;
      if (ar_active && ar_beats_left == 0) begin
        // start a row
        ar_next <= row_byte_addr;
        ar_beats_left <= xs << bpe_log2;
      end else if (ar_active && ar_next[47:32] != '0) begin
        // The row lies beyond the 32-bit AXI address space: no buffer is there.
        err_valid <= 1'b1;
        err_code <= vdla_pkg::E_ADDR_OVERFLOW;
        err_info <= ar_row_entry[31:0];
        ar_active <= 1'b0;
      end else if (can_issue) begin
        ar_valid <= 1'b1;
        ar_addr <= ar_next[31:0];
        ar_len <= 8'(burst - 1);
        ar_next <= ar_next + (48'(burst) << beat_log2);
        ar_beats_left <= ar_beats_left - burst;
        if (ar_beats_left == burst) begin
          // last burst of the row
          ar_row <= ar_row + 1;
          ar_row_entry <= ar_row_entry + 40'(stride);
          if (ar_row + 1 == ys) ar_active <= 1'b0;
        end
      end
      outstanding <= outstanding + 4'(ar_fire) - 4'(r_valid && r_last);

      // ---- data ----
      if (r_valid) begin
        if (r_resp != 2'b00) begin
          err_valid <= 1'b1;
          err_code <= vdla_pkg::E_AXI_READ;
          err_info <= d_entry << elog2;  // byte address, as fetch and the HLS C++ report it
        end
        d_beat <= entry_complete ? 8'd0 : d_beat + 1'b1;
        if (entry_complete) begin
          if (d_col + 1 == xs) begin
            d_col <= '0;
            d_row <= d_row + 1;
            d_row_start <= d_row_start + cols;
            d_sram <= d_row_start + cols;
            d_entry <= d_row_entry + stride;
            d_row_entry <= d_row_entry + stride;
          end else begin
            d_col <= d_col + 1;
            d_sram <= d_sram + 1;
            d_entry <= d_entry + 1;
          end
        end
      end

      // ---- padding ----
      if (p_step) begin
        if (p_at_data) begin
          if (p_col + xs == cols) begin
            p_col <= '0;
            p_row <= p_row + 1;
          end else p_col <= p_col + xs;
          p_sram <= p_sram + xs;
        end else begin
          if (p_col + 1 == cols) begin
            p_col <= '0;
            p_row <= p_row + 1;
          end else p_col <= p_col + 1;
          p_sram <= p_sram + 1;
        end
      end

      if (all_done) begin
        busy <= 1'b0;
        done <= 1'b1;
      end
    end
  end
  // Run-time checks (simulation only: synthesis defines SYNTHESIS, and the fast
  // cycle model defines VDLA_NO_ASSERTIONS). See docs/hardware.md, "Assertions".
`ifndef SYNTHESIS
`ifndef VDLA_NO_ASSERTIONS
  always @(posedge clk) begin
    if (!rst) begin
      if (ar_valid) begin
        assert (32'(ar_len) < MAX_BURST) else $error("vdla_xfer_read: burst of %0d beats above MAX_BURST %0d", 32'(ar_len) + 1, MAX_BURST);
        assert (32'(ar_addr[11:0]) + ((32'(ar_len) + 1) << ar_size) <= 4096)
        else $error("vdla_xfer_read: burst at 0x%08x of %0d beats of 2^%0d bytes crosses 4 KiB", ar_addr, 32'(ar_len) + 1, ar_size);
      end
      assert (32'(outstanding) <= MAX_OUTSTANDING) else $error("vdla_xfer_read: %0d bursts outstanding, above %0d", outstanding, MAX_OUTSTANDING);
      assert (!(r_valid && !busy)) else $error("vdla_xfer_read: read data while idle");
    end
  end
`endif
`endif
endmodule
