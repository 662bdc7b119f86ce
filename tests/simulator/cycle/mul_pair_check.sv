// Test wrapper: one packed pair multiply (vdla_mul_pair_pkg::mul_pair) as a
// combinational function of its three int8 operands.
module mul_pair_check (
    input  logic [7:0]  x,
    input  logic [7:0]  w_lo,
    input  logic [7:0]  w_hi,
    output logic [31:0] p
);
  assign p = vdla_mul_pair_pkg::mul_pair(32'(x), 32'(w_lo), 32'(w_hi));
endmodule
