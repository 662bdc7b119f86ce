// Simple dual-port RAM: one write port with per-lane write enables and one
// synchronous read port. This is the shape FPGA tools infer as block RAM (read
// data registered, no reset, no read-during-write promise: a caller that reads
// an address written at the same edge forwards the written value itself).
module vdla_ram #(
    parameter int WIDTH = 32,
    parameter int DEPTH = 256,
    parameter int LANE  = WIDTH  // write-enable granularity in bits
) (
    input  logic                     clk,
    input  logic [WIDTH/LANE-1:0]    we,
    input  logic [$clog2(DEPTH)-1:0] waddr,
    input  logic [WIDTH-1:0]         wdata,
    input  logic                     re,
    input  logic [$clog2(DEPTH)-1:0] raddr,
    output logic [WIDTH-1:0]         rdata
);
  localparam int LANES = WIDTH / LANE;

  logic [WIDTH-1:0] mem[DEPTH];

  always_ff @(posedge clk) begin
    for (int l = 0; l < LANES; l++)
      if (we[l]) mem[waddr][l*LANE+:LANE] <= wdata[l*LANE+:LANE];
  end

  always_ff @(posedge clk) if (re) rdata <= mem[raddr];
endmodule
