// A module's command queue: instructions (with their program index) in
// dispatch order. The head stays in the queue while its module executes it and
// is popped only when the instruction completes, so an executing instruction
// occupies a slot exactly as in fsim (which matters for when fetch stalls on a
// full queue, and so for which programs deadlock).
//
// The head is read synchronously: `head` shows mem[rd_ptr] one cycle after the
// entry was written or the previous head popped. The sequencer never looks at
// `head` in the cycle right after a pop (it goes through IDLE), which is all the
// timing contract needs.
module vdla_cmd_queue #(
    parameter int WIDTH = 160,
    parameter int DEPTH = 4
) (
    input  logic             clk,
    input  logic             rst,
    input  logic             push,
    input  logic [WIDTH-1:0] din,
    input  logic             pop,
    output logic [WIDTH-1:0] head,
    output logic             full,
    output logic             empty
);
  localparam int AW = (DEPTH > 1) ? $clog2(DEPTH) : 1;

  logic [WIDTH-1:0] mem[DEPTH];
  logic [AW-1:0] wr_ptr, rd_ptr;
  logic [AW:0] count;

  assign full  = count == (AW + 1)'(DEPTH);
  assign empty = count == '0;

  function automatic logic [AW-1:0] next_ptr(input logic [AW-1:0] p);
    if (32'(p) == DEPTH - 1) next_ptr = '0;
    else next_ptr = p + 1'b1;
  endfunction

  always_ff @(posedge clk) begin
    if (push) mem[wr_ptr] <= din;
    head <= mem[rd_ptr];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      wr_ptr <= '0;
      rd_ptr <= '0;
      count  <= '0;
    end else begin
      if (push) wr_ptr <= next_ptr(wr_ptr);
      if (pop) rd_ptr <= next_ptr(rd_ptr);
      count <= count + (AW + 1)'(push) - (AW + 1)'(pop);
    end
  end
  // Run-time checks (simulation only: synthesis defines SYNTHESIS, and the fast
  // cycle model defines VDLA_NO_ASSERTIONS). See docs/hardware.md, "Assertions".
`ifndef SYNTHESIS
`ifndef VDLA_NO_ASSERTIONS
  always @(posedge clk) begin
    if (!rst) begin
      assert (!(push && full)) else $error("vdla_cmd_queue: push when full (depth %0d)", DEPTH);
      assert (!(pop && empty)) else $error("vdla_cmd_queue: pop when empty");
      assert (count <= (AW + 1)'(DEPTH)) else $error("vdla_cmd_queue: count %0d above depth %0d", count, DEPTH);
    end
  end
`endif
`endif
endmodule
