// Simple dual-port RAM: one write port with per-lane write enables and one
// synchronous read port. This is the shape FPGA tools infer as block RAM (read
// data registered, no reset, no read-during-write promise: a caller that reads
// an address written at the same edge forwards the written value itself).
module vdla_ram #(
    parameter int WIDTH = 32,
    parameter int DEPTH = 256,
    parameter int LANE  = WIDTH,  // write-enable granularity in bits
    // The write data: a whole entry, or fewer lanes (a multiple of LANE) that
    // repeat across it, lane l taking lane l mod (WDATA_BITS / LANE) of them.
    parameter int WDATA_BITS = WIDTH,
    // Synthesis: UltraRAM instead of block RAM (the config's "ultraram");
    // the behaviour is the same.
    parameter bit ULTRA = 1'b0
) (
    input  logic                     clk,
    input  logic [WIDTH/LANE-1:0]    we,
    input  logic [$clog2(DEPTH)-1:0] waddr,
    input  logic [WDATA_BITS-1:0]    wdata,
    input  logic                     re,
    input  logic [$clog2(DEPTH)-1:0] raddr,
    output logic [WIDTH-1:0]         rdata
);
  localparam int LANES = WIDTH / LANE;
  localparam int WDATA_LANES = WDATA_BITS / LANE;

  // Read, then write, in one block. The read takes the old contents (as it
  // would with the write in a block of its own, non-blocking); the write is
  // blocking because it comes after the read and no other block reads `mem`,
  // so the memory behaves exactly as with non-blocking writes. The Verilated
  // model then stores each written lane directly instead of through its
  // delayed-write bookkeeping for arrays, which cleared, and later tested, a
  // flag, an index, a bit offset and a value per lane in every cycle, writes
  // or not (WGT on pynq has 32 lanes). The two branches differ only in the
  // synthesis attribute, which cannot depend on a parameter.
  if (ULTRA) begin : g_ultra
    (* ram_style = "ultra" *) logic [WIDTH-1:0] mem[DEPTH];
    always_ff @(posedge clk) begin
      if (re) rdata <= mem[raddr];
      for (int l = 0; l < LANES; l++)
        if (we[l]) mem[waddr][l*LANE+:LANE] = wdata[(l%WDATA_LANES)*LANE+:LANE];
    end
  end else begin : g_block
    logic [WIDTH-1:0] mem[DEPTH];
    always_ff @(posedge clk) begin
      if (re) rdata <= mem[raddr];
      for (int l = 0; l < LANES; l++)
        if (we[l]) mem[waddr][l*LANE+:LANE] = wdata[(l%WDATA_LANES)*LANE+:LANE];
    end
  end
  // Run-time checks (simulation only: synthesis defines SYNTHESIS, and the fast
  // cycle model defines VDLA_NO_ASSERTIONS). See docs/hardware.md, "Assertions".
`ifndef SYNTHESIS
`ifndef VDLA_NO_ASSERTIONS
  // No reset port: the checks hold in every cycle (an enable is 0 when idle).
  always @(posedge clk) begin
    assert (we == '0 || 32'(waddr) < DEPTH) else $error("vdla_ram: write address %0d not below depth %0d", waddr, DEPTH);
    assert (!re || 32'(raddr) < DEPTH) else $error("vdla_ram: read address %0d not below depth %0d", raddr, DEPTH);
  end
`endif
`endif
endmodule
