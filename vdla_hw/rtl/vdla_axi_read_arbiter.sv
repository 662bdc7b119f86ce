// Shares the AXI read channels between fetch (ID 0), load (ID 1) and compute
// (ID 2). The address channel is a register slice with round-robin choice;
// several bursts may be outstanding (each requester bounds its own). Read data
// is routed by ID and always accepted: every requester has room for the data
// it asked for, so one slow consumer can never block another's data.
module vdla_axi_read_arbiter (
    input  logic        clk,
    input  logic        rst,
    input  logic [2:0]  req_valid,
    output logic [2:0]  req_ready,
    input  logic [95:0] req_addr,  // 3 x 32
    input  logic [23:0] req_len,   // 3 x 8
    input  logic [8:0]  req_size,  // 3 x 3
    output logic        ar_valid,
    input  logic        ar_ready,
    output logic [31:0] ar_addr,
    output logic [7:0]  ar_len,
    output logic [2:0]  ar_size,
    output logic [1:0]  ar_id,
    input  logic        r_valid,
    input  logic [1:0]  r_id,
    output logic [2:0]  r_valid_to
);
  logic [1:0] last;  // requester granted last
  logic [1:0] pick;
  logic found;
  always_comb begin
    found = 1'b0;
    pick = 2'd0;
    for (int n = 1; n <= 3; n++) begin
      if (!found && req_valid[(32'(last)+n)%3]) begin
        found = 1'b1;
        pick = 2'((32'(last) + n) % 3);
      end
    end
  end
  wire take = found && (!ar_valid || ar_ready);
  assign req_ready = take ? (3'b001 << pick) : 3'b000;

  always_ff @(posedge clk) begin
    if (rst) begin
      ar_valid <= 1'b0;
      last <= 2'd2;
    end else if (take) begin
      ar_valid <= 1'b1;
      ar_addr <= req_addr[pick*32+:32];
      ar_len <= req_len[pick*8+:8];
      ar_size <= req_size[pick*3+:3];
      ar_id <= pick;
      last <= pick;
    end else if (ar_ready) begin
      ar_valid <= 1'b0;
    end
  end

  assign r_valid_to = r_valid ? (3'b001 << r_id) : 3'b000;
endmodule
