// The GEMM/ALU loop nest: for o < iter_out, i < iter_in, u in [uop_begin,
// uop_end) emits (u, dst/src/wgt offsets) at most one per cycle. Offsets are
// running sums (o*f_out + i*f_in) so no multiplier is needed. `hold` skips a
// cycle (while S1 of the compute pipeline stalls a tensor-operand ALU op that
// must read ACC[src]); `abort` stops the nest (an index error).
//
// DWGEMM (`dw`) runs the loops in the order u, o, i, because its window
// collects the inputs of one inner run; dst steps by dst_in only after an
// iteration that completes an output (`wr`): the first after taps-1
// iterations, then every stride-th. `phase` counts the iterations to the next
// output, so no division is needed. `first` marks an inner run's first
// iteration (the window starts empty).
module vdla_loop_gen (
    input  logic        clk,
    input  logic        rst,
    input  logic        start,
    input  logic        abort,
    input  logic        hold,
    input  logic [31:0] uop_begin,
    input  logic [31:0] uop_end,
    input  logic [31:0] iter_out,
    input  logic [31:0] iter_in,
    input  logic [31:0] dst_out, dst_in,
    input  logic [31:0] src_out, src_in,
    input  logic [31:0] wgt_out, wgt_in,
    input  logic        dw,      // DWGEMM order and output steps
    input  logic [3:0]  taps,    // DWGEMM: at least 1
    input  logic [1:0]  stride,  // DWGEMM: at least 1
    output logic        valid,  // an iteration this cycle
    output logic        wr,     // the iteration writes ACC[dst] (always, except DWGEMM's window fills)
    output logic        first,  // the first iteration of an inner run
    output logic [31:0] u,
    output logic [31:0] dst_off, src_off, wgt_off,
    output logic        active  // iterations left (including this cycle's)
);
  logic [31:0] ub, ue, n_out, n_in, o, i;
  logic [31:0] fdo, fdi, fso, fsi, fwo, fwi;
  logic [31:0] dst_base, src_base, wgt_base;  // o * f_out
  logic dw_mode;
  logic [3:0] phase, taps_m1;  // iterations to the next output; taps - 1
  logic [1:0] stride_m1;

  assign valid = active && !hold && !abort;
  assign wr = !dw_mode || phase == 4'd0;
  assign first = i == 32'd0;

  always_ff @(posedge clk) begin
    if (rst) begin
      active <= 1'b0;
    end else if (start) begin
      active <= uop_begin < uop_end && iter_out != 0 && iter_in != 0;
      ub <= uop_begin;
      ue <= uop_end;
      n_out <= iter_out;
      n_in <= iter_in;
      fdo <= dst_out;
      fdi <= dst_in;
      fso <= src_out;
      fsi <= src_in;
      fwo <= wgt_out;
      fwi <= wgt_in;
      u <= uop_begin;
      o <= '0;
      i <= '0;
      dst_off <= '0;
      src_off <= '0;
      wgt_off <= '0;
      dst_base <= '0;
      src_base <= '0;
      wgt_base <= '0;
      dw_mode <= dw;
      taps_m1 <= taps - 4'd1;
      stride_m1 <= stride - 2'd1;
      phase <= taps - 4'd1;
    end else if (abort) begin
      active <= 1'b0;
    end else if (valid && dw_mode) begin
      if (i + 1 != n_in) begin
        i <= i + 1;
        src_off <= src_off + fsi;
        if (phase == 4'd0) begin
          dst_off <= dst_off + fdi;
          phase <= 4'(stride_m1);
        end else begin
          phase <= phase - 4'd1;
        end
      end else begin
        i <= '0;
        phase <= taps_m1;
        if (o + 1 != n_out) begin
          o <= o + 1;
          dst_base <= dst_base + fdo;
          src_base <= src_base + fso;
          wgt_base <= wgt_base + fwo;
          dst_off <= dst_base + fdo;
          src_off <= src_base + fso;
          wgt_off <= wgt_base + fwo;
        end else begin
          o <= '0;
          dst_base <= '0;
          src_base <= '0;
          wgt_base <= '0;
          dst_off <= '0;
          src_off <= '0;
          wgt_off <= '0;
          if (u + 1 != ue) u <= u + 1;
          else active <= 1'b0;
        end
      end
    end else if (valid) begin
      if (u + 1 != ue) begin
        u <= u + 1;
      end else begin
        u <= ub;
        if (i + 1 != n_in) begin
          i <= i + 1;
          dst_off <= dst_off + fdi;
          src_off <= src_off + fsi;
          wgt_off <= wgt_off + fwi;
        end else begin
          i <= '0;
          o <= o + 1;
          if (o + 1 == n_out) active <= 1'b0;
          dst_base <= dst_base + fdo;
          src_base <= src_base + fso;
          wgt_base <= wgt_base + fwo;
          dst_off <= dst_base + fdo;
          src_off <= src_base + fso;
          wgt_off <= wgt_base + fwo;
        end
      end
    end
  end
endmodule
