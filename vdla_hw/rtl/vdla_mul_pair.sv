// Two signed int8 products that share one operand, x*w_lo and x*w_hi, from ONE
// multiplier: (w_hi * 2^16 + w_lo) * x = (x*w_hi) * 2^16 + x*w_lo. The packed
// operand is 25 bits and x is 8, so the multiply fits one DSP48E1 (25x18); this
// is how 256 int8 products of the pynq GEMM core fit 128 DSPs instead of 256.
//
// x*w_lo lies in [-16256, 16384]. Adding a bias of 2^15 to the product (the
// DSP's post-adder, so no logic) keeps the low part in [16512, 49152], inside
// [0, 2^16): no borrow reaches the high half, which is then exactly x*w_hi,
// and the low half is x*w_lo + 2^15. (Without the bias the high half needs +1
// when x*w_lo < 0: a 16-bit incrementer per pair in carry logic.) The whole
// biased product lies in (-2^31, 2^31), so 32 bits hold it.
//
// Both products leave biased by 2^15, as unsigned 16-bit numbers in [16512,
// 49152]: the low one as it is, the high one with bit 15 inverted (x*w_hi + 2^15
// modulo 2^16). The adder tree (vdla_gemm) sums them unsigned and removes the
// bias once per sum, instead of sign-extending every product; in the
// Verilated model that saves a sign extension per product per cycle. Checked
// exhaustively against x*w_lo + 2^15 and x*w_hi + 2^15 for all 2^24 operand
// triples.
//
// The product is registered here (the DSP's PREG), and only computed when `en`,
// which also keeps the simulator from evaluating idle multipliers.
(* use_dsp = "yes" *)
module vdla_mul_pair (
    input  logic              clk,
    input  logic              en,
    input  logic signed [7:0] x,
    input  logic signed [7:0] w_lo,
    input  logic signed [7:0] w_hi,
    output logic [15:0]       p_lo,  // x*w_lo + 2^15
    output logic [15:0]       p_hi   // x*w_hi + 2^15
);
  // The packed operand is a 25-bit value; it is formed in 32 bits (the
  // width of the product) so that each int8 is sign-extended once. Synthesis
  // narrows it back to 25 bits (the upper bits are copies of the sign), so the
  // multiply is still one DSP48E1 with its register and the bias absorbed.
  logic signed [31:0] packed_w;
  logic signed [31:0] p;  // packed_w * x + 2^15
  assign packed_w = (32'(w_hi) <<< 16) + 32'(w_lo);

  // All operands signed (a sized unsigned literal would make the expression unsigned).
  always_ff @(posedge clk) if (en) p <= packed_w * 32'(x) + 32'sd32768;

  assign p_lo = p[15:0];
  assign p_hi = p[31:16] ^ 16'h8000;
endmodule
