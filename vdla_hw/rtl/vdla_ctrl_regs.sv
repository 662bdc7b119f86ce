// The AXI4-Lite control slave: start/status, program address and length, the
// configuration hash, error reporting, live module state and the performance
// counters. The offsets, bits and counter count come from vdla_pkg, which is
// generated from vdla/hw/interface_table.h (docs/hardware.md shows the map).
// One transaction at a time (write address and data are taken together),
// which is all a driver needs.
module vdla_ctrl_regs #(
    parameter int NUM_COUNTERS = vdla_pkg::NUM_COUNTERS
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
          vdla_pkg::REG_CTRL: start <= wdata[vdla_pkg::CTRL_START];
          vdla_pkg::REG_INSN_ADDR: insn_addr <= wdata;
          vdla_pkg::REG_INSN_ADDR_HI: insn_addr_hi <= wdata;
          vdla_pkg::REG_INSN_COUNT: insn_count <= wdata;
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
    read_value = vdla_pkg::UNMAPPED_READ;
    if (addr >= vdla_pkg::REG_COUNTERS && 32'(addr) < 32'(vdla_pkg::REG_COUNTERS) + 8 * NUM_COUNTERS)
      read_value = counters[(addr-vdla_pkg::REG_COUNTERS)*8+:32];
    else case (addr)
      vdla_pkg::REG_CTRL: begin
        read_value = '0;
        read_value[vdla_pkg::CTRL_RUNNING] = running;
        read_value[vdla_pkg::CTRL_DONE] = done;
        read_value[vdla_pkg::CTRL_ERROR] = error;
      end
      vdla_pkg::REG_INSN_ADDR: read_value = insn_addr;
      vdla_pkg::REG_INSN_ADDR_HI: read_value = insn_addr_hi;
      vdla_pkg::REG_INSN_COUNT: read_value = insn_count;
      vdla_pkg::REG_HASH_LO: read_value = vdla_pkg::CONFIG_HASH[31:0];
      vdla_pkg::REG_HASH_HI: read_value = vdla_pkg::CONFIG_HASH[63:32];
      vdla_pkg::REG_ERROR_CODE: read_value = error_code;
      vdla_pkg::REG_ERROR_INDEX: read_value = error_index;
      vdla_pkg::REG_ERROR_INFO: read_value = error_info;
      vdla_pkg::REG_MODULE_STATE: read_value = module_state;
      vdla_pkg::REG_FETCH_INDEX: read_value = module_index[31:0];
      vdla_pkg::REG_LOAD_INDEX: read_value = module_index[63:32];
      vdla_pkg::REG_COMPUTE_INDEX: read_value = module_index[95:64];
      vdla_pkg::REG_STORE_INDEX: read_value = module_index[127:96];
      vdla_pkg::REG_TOKENS: read_value = tokens;
      vdla_pkg::REG_QUEUES: read_value = queues;
      vdla_pkg::REG_CLOCK_KHZ: read_value = 32'(vdla_pkg::CLOCK_KHZ);
      default: read_value = vdla_pkg::UNMAPPED_READ;
    endcase
  endfunction
endmodule
