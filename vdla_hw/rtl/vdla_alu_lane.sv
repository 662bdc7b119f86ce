// One lane of the vector ALU: a = op(a, b) on int32, as docs/isa.md defines it.
// Shift amounts are clamped to [-31, 31]; RSHR rounds half up, computed in 33
// bits so that a + 2^(s-1) cannot overflow.
module vdla_alu_lane (
    input  logic [2:0]         op,
    input  logic signed [31:0] a,
    input  logic signed [31:0] b,
    output logic signed [31:0] y
);
  wire signed [31:0] s = (b > 31) ? 32'sd31 : ((b < -31) ? -32'sd31 : b);
  wire [4:0] left = 5'(-s);
  wire [4:0] right = 5'(s);
  wire signed [32:0] rounded = 33'(a) + (33'sd1 <<< (right - 5'd1));

  always_comb begin
    case (op)
      3'(vdla_pkg::ALU_MIN): y = (a < b) ? a : b;
      3'(vdla_pkg::ALU_MAX): y = (a > b) ? a : b;
      3'(vdla_pkg::ALU_ADD): y = a + b;
      3'(vdla_pkg::ALU_MUL): y = a * b;
      3'(vdla_pkg::ALU_SHR): y = (s < 0) ? (a <<< left) : (a >>> right);
      3'(vdla_pkg::ALU_RSHR): y = (s < 0) ? (a <<< left) : ((s == 0) ? a : 32'(rounded >>> right));
      default: y = b;  // MOV
    endcase
  end
endmodule
