// One lane of the vector ALU: a = op(a, b) on int32, as docs/isa.md defines it.
// Shift amounts are clamped to [-31, 31]; RSHR rounds half up, computed in 33
// bits so that a + 2^(s-1) cannot overflow.
//
// MUL and MULSHR share one signed 32x32 multiplier: MUL keeps the low 32 bits
// of a*b, MULSHR multiplies by m = b >>> 6 and shifts the 64-bit product right
// by s = b[5:0] with rounding (|a*m| < 2^56, so product plus rounding term
// fits 64 bits). CLIP reads its bounds as two signed bytes of b.
module vdla_alu_lane (
    input  logic [vdla_pkg::ALU_ALU_OP_W-1:0] op,
    input  logic signed [31:0]                a,
    input  logic signed [31:0]                b,
    output logic signed [31:0]                y
);
  localparam int OpW = vdla_pkg::ALU_ALU_OP_W;
  wire signed [31:0] s = (b > 31) ? 32'sd31 : ((b < -31) ? -32'sd31 : b);
  wire [4:0] left = 5'(-s);
  wire [4:0] right = 5'(s);
  wire signed [32:0] rounded = 33'(a) + (33'sd1 <<< (right - 5'd1));

  wire is_mulshr = op == OpW'(vdla_pkg::ALU_MULSHR);
  wire signed [31:0] factor = is_mulshr ? (b >>> 6) : b;
  wire signed [63:0] product = 64'(a) * 64'(factor);
  wire [5:0] mulshr_shift = b[5:0];
  wire signed [63:0] mulshr_round = (mulshr_shift == 6'd0) ? 64'sd0 : (64'sd1 <<< (mulshr_shift - 6'd1));
  wire signed [63:0] mulshr_sum = product + mulshr_round;
  wire signed [63:0] mulshr_y = mulshr_sum >>> mulshr_shift;

  wire signed [31:0] clip_lo = 32'(signed'(b[7:0]));
  wire signed [31:0] clip_hi = 32'(signed'(b[15:8]));
  wire signed [31:0] clip_raised = (a < clip_lo) ? clip_lo : a;

  always_comb begin
    case (op)
      OpW'(vdla_pkg::ALU_MIN): y = (a < b) ? a : b;
      OpW'(vdla_pkg::ALU_MAX): y = (a > b) ? a : b;
      OpW'(vdla_pkg::ALU_ADD): y = a + b;
      OpW'(vdla_pkg::ALU_MUL): y = product[31:0];
      OpW'(vdla_pkg::ALU_SHR): y = (s < 0) ? (a <<< left) : (a >>> right);
      OpW'(vdla_pkg::ALU_RSHR): y = (s < 0) ? (a <<< left) : ((s == 0) ? a : 32'(rounded >>> right));
      OpW'(vdla_pkg::ALU_CLIP): y = (clip_raised > clip_hi) ? clip_hi : clip_raised;
      OpW'(vdla_pkg::ALU_MULSHR): y = mulshr_y[31:0];
      default: y = b;  // MOV
    endcase
  end
endmodule
