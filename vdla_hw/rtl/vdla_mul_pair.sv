// Two signed int8 products that share one operand, x*w_lo and x*w_hi, from ONE
// multiplier: (w_hi * 2^16 + w_lo) * x = (x*w_hi) * 2^16 + x*w_lo. The packed
// operand is 25 bits and x is 8, so the multiply fits one DSP48E1 (25x18); this
// is how 256 int8 products of the pynq GEMM core fit 128 DSPs instead of 256.
// x*w_lo lies in [-16256, 16384] and so is exactly the low 16 bits read as
// signed; the high part then needs +1 when the low product was negative (its
// sign borrowed from the upper bits).
//
// The product is registered here (the DSP's MREG), and only computed when `en`,
// which also keeps the simulator from evaluating idle multipliers.
(* use_dsp = "yes" *)
module vdla_mul_pair (
    input  logic              clk,
    input  logic              en,
    input  logic signed [7:0] x,
    input  logic signed [7:0] w_lo,
    input  logic signed [7:0] w_hi,
    output logic signed [15:0] p_lo,
    output logic signed [15:0] p_hi
);
  logic signed [24:0] packed_w;
  logic signed [32:0] p;
  assign packed_w = (25'(w_hi) <<< 16) + 25'(w_lo);

  always_ff @(posedge clk) if (en) p <= packed_w * 33'(x);

  assign p_lo = p[15:0];
  assign p_hi = p[31:16] + 16'(p[15]);
endmodule
