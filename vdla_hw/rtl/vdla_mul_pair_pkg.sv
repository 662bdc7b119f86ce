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
// triples. The inversion of the high half's bit 15 is folded into the
// constant: adding 2^31 modulo 2^32 inverts bit 31 and nothing else, so the
// result is packed_w * x + 2^31 + 2^15 and both products are plain slices of
// it, [15:0] and [31:16] (the constant rides in the DSP's adder as before).
//
// A function rather than a module: vdla_gemm registers the result (the DSP's
// PREG) in its own array, which the adder trees read directly (a module's
// output register would be copied into that array on every evaluation of the
// Verilated model).
// The simulator (Verilated) compiles the XOR form below, synthesis the plain
// one; VDLA_MUL_PAIR_PLAIN_FORM selects the plain one in the simulator too
// (for the test that compares both with the products).
`ifdef VERILATOR
`ifndef VDLA_MUL_PAIR_PLAIN_FORM
`define VDLA_MUL_PAIR_XOR_FORM
`endif
`endif

package vdla_mul_pair_pkg;
  // The int8 operands come in the low bytes of 32-bit arguments (the upper
  // bits are ignored): as 8-bit arguments they would be byte-sized
  // temporaries in the Verilated C++, through which the compiler no longer
  // sees the sign extension below.
  function automatic logic signed [31:0] mul_pair(input logic [31:0] x, input logic [31:0] w_lo,
                                                  input logic [31:0] w_hi);
    // The packed operand is a 25-bit value; it is formed in 32 bits (the
    // width of the product) so that each int8 is sign-extended once.
    // Synthesis narrows it back to 25 bits (the upper bits are copies of the
    // sign), so the multiply is one DSP48E1 with its register and the
    // constant absorbed.
    logic signed [31:0] packed_w;
    logic signed [31:0] x_ext;
`ifdef VDLA_MUL_PAIR_XOR_FORM
    // The same sign extensions in the form (v XOR 0x80) - 0x80, which the C++
    // compiler recognises as a sign extension and turns into one
    // sign-extending byte load; Verilator writes $signed widening as a mask,
    // negate and OR that no compiler recognises (22 instructions per pair
    // instead of about 10; these 128 multiplies were a fifth of the
    // simulator's time). Synthesis keeps the $signed form: an adder here would
    // hide from yosys that the operands are 8 and 25 bits wide and break the
    // one-DSP mapping. Both forms are the same function of the 8 input bits
    // (two's complement), and the product is taken modulo 2^32 either way.
    // Both are checked exhaustively over all 2^24 operand triples
    // (tests/simulator/cycle/mul_pair_test.cpp).
    packed_w = (((32'(w_hi[7:0]) ^ 32'h80) - 32'h80) << 16) + ((32'(w_lo[7:0]) ^ 32'h80) - 32'h80);
    x_ext = (32'(x[7:0]) ^ 32'h80) - 32'h80;
`else
    packed_w = (32'($signed(w_hi[7:0])) <<< 16) + 32'($signed(w_lo[7:0]));
    x_ext = 32'($signed(x[7:0]));
`endif
    // All operands signed (a sized unsigned literal would make the expression
    // unsigned); 32'sh80008000 is 2^31 + 2^15 modulo 2^32.
    mul_pair = packed_w * x_ext + 32'sh8000_8000;
  endfunction
endpackage

`undef VDLA_MUL_PAIR_XOR_FORM
