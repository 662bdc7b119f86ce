// The end of the SRAM block a LOAD writes: its base plus its padded rows
// times its padded columns. The load module (INP, WGT) and the compute
// module (UOP, ACC, ACC8) each check it against the depth of the memory the
// LOAD targets. Computed at the widths the instruction's fields allow (the
// sum of a size and two pads needs two bits more than the widest of them):
// at 64 bits the product took ten DSPs and wide adders.
module vdla_load_range (
    input  logic [31:0] sram_base,
    input  logic [31:0] y_size,
    input  logic [31:0] x_size,
    input  logic [31:0] pad_top,
    input  logic [31:0] pad_bottom,
    input  logic [31:0] pad_left,
    input  logic [31:0] pad_right,
    output logic [63:0] block_end
);
  localparam int ROWS_W = ((vdla_pkg::LOAD_Y_SIZE_W > vdla_pkg::LOAD_Y_PAD_TOP_W) ? vdla_pkg::LOAD_Y_SIZE_W :
                                                                                  vdla_pkg::LOAD_Y_PAD_TOP_W) + 2;
  localparam int COLS_W = ((vdla_pkg::LOAD_X_SIZE_W > vdla_pkg::LOAD_X_PAD_LEFT_W) ? vdla_pkg::LOAD_X_SIZE_W :
                                                                                   vdla_pkg::LOAD_X_PAD_LEFT_W) + 2;
  localparam int AREA_W = ROWS_W + COLS_W;
  wire [ROWS_W-1:0] rows = ROWS_W'(pad_top) + ROWS_W'(y_size) + ROWS_W'(pad_bottom);
  wire [COLS_W-1:0] cols = COLS_W'(pad_left) + COLS_W'(x_size) + COLS_W'(pad_right);
  assign block_end = 64'(sram_base) + 64'(AREA_W'(rows) * AREA_W'(cols));
endmodule
