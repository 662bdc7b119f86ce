// The AXI4-Lite control slave: start/status, program address and length, the
// configuration hash, error reporting, live module state and the performance
// counters. The register map is in docs/hardware.md. One transaction at a time
// (write address and data are taken together), which is all a driver needs.
module vdla_ctrl_regs #(
    parameter int NUM_COUNTERS = 18
) (
    input  logic        clk,
    input  logic        rst,
    // AXI4-Lite
    input  logic        awvalid,
    output logic        awready,
    input  logic [11:0] awaddr,
    input  logic        wvalid,
    output logic        wready,
    input  logic [31:0] wdata,
    output logic        bvalid,
    input  logic        bready,
    output logic [1:0]  bresp,
    input  logic        arvalid,
    output logic        arready,
    input  logic [11:0] araddr,
    output logic        rvalid,
    input  logic        rready,
    output logic [31:0] rdata,
    output logic [1:0]  rresp,
    // to the core
    output logic        start,  // pulse
    output logic [31:0] insn_addr,
    output logic [31:0] insn_addr_hi,
    output logic [31:0] insn_count,
    // from the core
    input  logic        running,
    input  logic        done,
    input  logic        error,
    input  logic [31:0] error_code,
    input  logic [31:0] error_index,
    input  logic [31:0] error_info,
    input  logic [31:0] module_state,
    input  logic [127:0] module_index,  // fetch, load, compute, store
    input  logic [31:0] tokens,
    input  logic [31:0] queues,
    input  logic [64*NUM_COUNTERS-1:0] counters
);
  assign bresp = 2'b00;
  assign rresp = 2'b00;

  wire write = awvalid && wvalid && !bvalid;
  assign awready = write;
  assign wready = write;
  assign arready = !rvalid;

  always_ff @(posedge clk) begin
    start <= 1'b0;
    if (rst) begin
      bvalid <= 1'b0;
      rvalid <= 1'b0;
      insn_addr <= '0;
      insn_addr_hi <= '0;
      insn_count <= '0;
    end else begin
      if (bvalid && bready) bvalid <= 1'b0;
      if (write) begin
        bvalid <= 1'b1;
        case (awaddr)
          12'h000: start <= wdata[0];
          12'h004: insn_addr <= wdata;
          12'h008: insn_addr_hi <= wdata;
          12'h00c: insn_count <= wdata;
          default: ;
        endcase
      end
      if (rvalid && rready) rvalid <= 1'b0;
      if (arvalid && arready) begin
        rvalid <= 1'b1;
        rdata <= read_value(araddr);
      end
    end
  end

  function automatic logic [31:0] read_value(input logic [11:0] addr);
    read_value = 32'hdead_beef;
    if (addr >= 12'h100 && 32'(addr) < 32'h100 + 8 * NUM_COUNTERS) read_value = counters[(addr-12'h100)*8+:32];
    else case (addr)
      12'h000: read_value = {29'd0, error, done, running};
      12'h004: read_value = insn_addr;
      12'h008: read_value = insn_addr_hi;
      12'h00c: read_value = insn_count;
      12'h010: read_value = vdla_pkg::CONFIG_HASH[31:0];
      12'h014: read_value = vdla_pkg::CONFIG_HASH[63:32];
      12'h018: read_value = error_code;
      12'h01c: read_value = error_index;
      12'h020: read_value = error_info;
      12'h024: read_value = module_state;
      12'h028: read_value = module_index[31:0];
      12'h02c: read_value = module_index[63:32];
      12'h030: read_value = module_index[95:64];
      12'h034: read_value = module_index[127:96];
      12'h038: read_value = tokens;
      12'h03c: read_value = queues;
      12'h040: read_value = 32'(vdla_pkg::CLOCK_KHZ);
      default: read_value = 32'hdead_beef;
    endcase
  endfunction
endmodule
