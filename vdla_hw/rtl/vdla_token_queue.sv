// A dependency-token queue. Tokens carry no data, so the queue is a counter
// bounded by TOKEN_QUEUE_DEPTH. Each queue has one producer and one consumer
// module, so a push checked for room before the instruction ran still has room
// when the instruction completes.
module vdla_token_queue (
    input  logic       clk,
    input  logic       rst,
    input  logic       push,
    input  logic       pop,
    output logic       avail,  // at least one token
    output logic       room,   // not full
    output logic [7:0] count
);
  localparam int DEPTH = vdla_pkg::TOKEN_QUEUE_DEPTH;
  localparam int CW = $clog2(DEPTH + 1);

  logic [CW-1:0] n;
  assign avail = n != '0;
  assign room  = n != CW'(DEPTH);
  assign count = 8'(n);

  always_ff @(posedge clk) begin
    if (rst) n <= '0;
    else n <= n + CW'(push) - CW'(pop);
  end
  // Run-time checks (simulation only: synthesis defines SYNTHESIS, and the fast
  // cycle model defines VDLA_NO_ASSERTIONS). See docs/hardware.md, "Assertions".
`ifndef SYNTHESIS
`ifndef VDLA_NO_ASSERTIONS
  always @(posedge clk) begin
    if (!rst) begin
      assert (!(push && !room)) else $error("vdla_token_queue: push when full (depth %0d)", DEPTH);
      assert (!(pop && !avail)) else $error("vdla_token_queue: pop when empty");
      assert (n <= CW'(DEPTH)) else $error("vdla_token_queue: count %0d above depth %0d", n, DEPTH);
    end
  end
`endif
`endif
endmodule
