// Simulation-only wrapper around vdla_top for the cycle harness: the AXI and
// AXI-Lite handshake signals are bundled into a few 32/64-bit ports, so that
// the harness moves a handful of words per cycle instead of sixty narrow
// signals. Bit positions are mirrored in src/harness.h (namespace ports).
module vdla_sim_top (
    input  logic        clk,
    input  logic        rst,
    // {bresp[11:10], bvalid[9], rresp[8:7], rid[6:5], rlast[4], rvalid[3], wready[2], awready[1], arready[0]}
    input  logic [31:0] axi_in,
    input  logic [vdla_pkg::AXI_DATA_BITS-1:0] axi_rdata,
    // {wdata[63:32], addr[16:5], rready[4], arvalid[3], bready[2], wvalid[1], awvalid[0]}
    input  logic [63:0] axil_in,
    // {araddr[63:32], arlen[13:6], arsize[5:3], arid[2:1], arvalid[0]}
    output logic [63:0] axi_ar,
    // {awaddr[63:32], awlen[13:6], awvalid[0]}
    output logic [63:0] axi_aw,
    // {wlast[1], wvalid[0]}
    output logic [31:0] axi_w,
    output logic [vdla_pkg::AXI_DATA_BITS-1:0] axi_wdata,
    // {rdata[63:32], rvalid[4], arready[3], bvalid[2], wready[1], awready[0]}
    output logic [63:0] axil_out,
    output logic [31:0] trace_load,
    output logic [31:0] trace_compute,
    output logic [31:0] trace_store
);
  logic arvalid, awvalid, wvalid, wlast, l_awready, l_wready, l_bvalid, l_arready, l_rvalid;
  logic [31:0] araddr, awaddr, l_rdata;
  logic [7:0] arlen, awlen;
  logic [2:0] arsize, awsize;
  logic [1:0] arburst, awburst, arid, awid, bresp_u, rresp_u;
  logic rready, bready;
  logic [vdla_pkg::AXI_DATA_BITS/8-1:0] wstrb;

  // The harness writes the inputs before the falling edge and reads the
  // outputs after the rising one. The inputs are registered at the falling
  // edge, so that the logic that depends on them is evaluated once, at the
  // falling edge: a Verilated model re-evaluates all logic fed directly by
  // top-level inputs on every evaluation, i.e. at both edges. The design sees
  // the same values at the rising edge as with direct inputs.
  logic rst_q;
  logic [31:0] axi_in_q;
  logic [vdla_pkg::AXI_DATA_BITS-1:0] axi_rdata_q;
  logic [63:0] axil_in_q;
  always_ff @(negedge clk) begin
    rst_q <= rst;
    axi_in_q <= axi_in;
    axi_rdata_q <= axi_rdata;
    axil_in_q <= axil_in;
  end

  vdla_top top (
      .clk, .rst(rst_q),
      .s_axil_awvalid(axil_in_q[0]), .s_axil_awready(l_awready), .s_axil_awaddr(axil_in_q[16:5]),
      .s_axil_wvalid(axil_in_q[1]), .s_axil_wready(l_wready), .s_axil_wdata(axil_in_q[63:32]),
      .s_axil_bvalid(l_bvalid), .s_axil_bready(axil_in_q[2]), .s_axil_bresp(bresp_u),
      .s_axil_arvalid(axil_in_q[3]), .s_axil_arready(l_arready), .s_axil_araddr(axil_in_q[16:5]),
      .s_axil_rvalid(l_rvalid), .s_axil_rready(axil_in_q[4]), .s_axil_rdata(l_rdata), .s_axil_rresp(rresp_u),
      .m_axi_arvalid(arvalid), .m_axi_arready(axi_in_q[0]), .m_axi_araddr(araddr), .m_axi_arlen(arlen),
      .m_axi_arsize(arsize), .m_axi_arburst(arburst), .m_axi_arid(arid),
      .m_axi_rvalid(axi_in_q[3]), .m_axi_rready(rready), .m_axi_rdata(axi_rdata_q), .m_axi_rid(axi_in_q[6:5]),
      .m_axi_rlast(axi_in_q[4]), .m_axi_rresp(axi_in_q[8:7]),
      .m_axi_awvalid(awvalid), .m_axi_awready(axi_in_q[1]), .m_axi_awaddr(awaddr), .m_axi_awlen(awlen),
      .m_axi_awsize(awsize), .m_axi_awburst(awburst), .m_axi_awid(awid),
      .m_axi_wvalid(wvalid), .m_axi_wready(axi_in_q[2]), .m_axi_wdata(axi_wdata), .m_axi_wstrb(wstrb),
      .m_axi_wlast(wlast),
      .m_axi_bvalid(axi_in_q[9]), .m_axi_bready(bready), .m_axi_bid(2'd0), .m_axi_bresp(axi_in_q[11:10]),
      .trace_load, .trace_compute, .trace_store
  );

  assign axi_ar = {araddr, 18'd0, arlen, arsize, arid, arvalid};
  assign axi_aw = {awaddr, 18'd0, awlen, 5'd0, awvalid};
  assign axi_w = {30'd0, wlast, wvalid};
  assign axil_out = {l_rdata, 27'd0, l_rvalid, l_arready, l_bvalid, l_wready, l_awready};
endmodule
