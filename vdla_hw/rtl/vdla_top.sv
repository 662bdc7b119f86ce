// VDLA top: fetch, load, compute and store with their command queues, the four
// dependency-token queues, the on-chip memories shared between modules (INP,
// WGT, OUT), an AXI4 master to DRAM and an AXI4-Lite control slave.
// docs/hardware.md describes the microarchitecture and the register map.
module vdla_top (
    input  logic        clk,
    input  logic        rst,
    // AXI4-Lite control slave
    input  logic        s_axil_awvalid,
    output logic        s_axil_awready,
    input  logic [11:0] s_axil_awaddr,
    input  logic        s_axil_wvalid,
    output logic        s_axil_wready,
    input  logic [31:0] s_axil_wdata,
    output logic        s_axil_bvalid,
    input  logic        s_axil_bready,
    output logic [1:0]  s_axil_bresp,
    input  logic        s_axil_arvalid,
    output logic        s_axil_arready,
    input  logic [11:0] s_axil_araddr,
    output logic        s_axil_rvalid,
    input  logic        s_axil_rready,
    output logic [31:0] s_axil_rdata,
    output logic [1:0]  s_axil_rresp,
    // AXI4 master (INCR bursts; reads by ID: 0 fetch, 1 load, 2 compute)
    output logic        m_axi_arvalid,
    input  logic        m_axi_arready,
    output logic [31:0] m_axi_araddr,
    output logic [7:0]  m_axi_arlen,
    output logic [2:0]  m_axi_arsize,
    output logic [1:0]  m_axi_arburst,
    output logic [1:0]  m_axi_arid,
    input  logic        m_axi_rvalid,
    output logic        m_axi_rready,
    input  logic [vdla_pkg::AXI_DATA_BITS-1:0] m_axi_rdata,
    input  logic [1:0]  m_axi_rid,
    input  logic        m_axi_rlast,
    input  logic [1:0]  m_axi_rresp,
    output logic        m_axi_awvalid,
    input  logic        m_axi_awready,
    output logic [31:0] m_axi_awaddr,
    output logic [7:0]  m_axi_awlen,
    output logic [2:0]  m_axi_awsize,
    output logic [1:0]  m_axi_awburst,
    output logic [1:0]  m_axi_awid,
    output logic        m_axi_wvalid,
    input  logic        m_axi_wready,
    output logic [vdla_pkg::AXI_DATA_BITS-1:0] m_axi_wdata,
    output logic [vdla_pkg::AXI_DATA_BITS/8-1:0] m_axi_wstrb,
    output logic        m_axi_wlast,
    input  logic        m_axi_bvalid,
    output logic        m_axi_bready,
    input  logic [1:0]  m_axi_bid,
    input  logic [1:0]  m_axi_bresp,
    // Activity for timeline traces: {state[3:0], instruction index[27:0]}
    output logic [31:0] trace_load,
    output logic [31:0] trace_compute,
    output logic [31:0] trace_store
);
  localparam int NUM_COUNTERS = vdla_pkg::NUM_COUNTERS;
  localparam int INP_LANE = (vdla_pkg::INP_ENTRY_BITS < vdla_pkg::AXI_DATA_BITS) ?
      vdla_pkg::INP_ENTRY_BITS : vdla_pkg::AXI_DATA_BITS;
  localparam int WGT_LANE = (vdla_pkg::WGT_ENTRY_BITS < vdla_pkg::AXI_DATA_BITS) ?
      vdla_pkg::WGT_ENTRY_BITS : vdla_pkg::AXI_DATA_BITS;

  // ---------------- control ----------------
  logic start;
  logic [31:0] insn_addr, insn_addr_hi, insn_count;
  logic running, done, error;
  logic [7:0] err_code;
  logic [1:0] err_module;
  logic [31:0] err_index, err_info;
  logic finish_seen;

  // ---------------- command queues ----------------
  logic [2:0] q_push, q_full, q_empty, q_pop;
  logic [159:0] q_data;
  logic [159:0] q_head[3];
  for (genvar m = 0; m < 3; m++) begin : g_queue
    vdla_cmd_queue #(.WIDTH(160), .DEPTH(vdla_pkg::CMD_QUEUE_DEPTH)) queue (
        .clk, .rst, .push(q_push[m]), .din(q_data), .pop(q_pop[m]), .head(q_head[m]), .full(q_full[m]),
        .empty(q_empty[m])
    );
  end

  // ---------------- token queues: 0 l->c, 1 c->l, 2 c->s, 3 s->c ----------------
  logic [3:0] t_push, t_pop, t_avail, t_room;
  logic [7:0] t_count[4];
  for (genvar t = 0; t < 4; t++) begin : g_token
    vdla_token_queue token (
        .clk, .rst(rst || (start && !running)), .push(t_push[t]), .pop(t_pop[t]), .avail(t_avail[t]), .room(t_room[t]),
        .count(t_count[t])
    );
  end

  // ---------------- AXI read sharing ----------------
  logic [2:0] rq_valid, rq_ready, r_to;
  logic [31:0] f_ar_addr, l_ar_addr, c_ar_addr;
  logic [7:0] f_ar_len, l_ar_len, c_ar_len;
  logic [2:0] l_ar_size, c_ar_size;
  vdla_axi_read_arbiter arbiter (
      .clk, .rst,
      .req_valid(rq_valid), .req_ready(rq_ready),
      .req_addr({c_ar_addr, l_ar_addr, f_ar_addr}),
      .req_len({c_ar_len, l_ar_len, f_ar_len}),
      .req_size({c_ar_size, l_ar_size, 3'($clog2(vdla_pkg::AXI_DATA_BITS / 8))}),
      .ar_valid(m_axi_arvalid), .ar_ready(m_axi_arready), .ar_addr(m_axi_araddr), .ar_len(m_axi_arlen),
      .ar_size(m_axi_arsize), .ar_id(m_axi_arid),
      .r_valid(m_axi_rvalid), .r_id(m_axi_rid), .r_valid_to(r_to)
  );
  assign m_axi_arburst = 2'b01;  // INCR
  assign m_axi_rready = 1'b1;
  assign m_axi_awburst = 2'b01;
  assign m_axi_awid = 2'd0;
  assign m_axi_awsize = 3'($clog2(vdla_pkg::AXI_DATA_BITS / 8));
  assign m_axi_wstrb = '1;
  assign m_axi_bready = 1'b1;

  // ---------------- memories shared between modules ----------------
  logic [vdla_pkg::INP_ENTRY_BITS/INP_LANE-1:0] inp_we;
  logic [vdla_pkg::INP_IDX_BITS-1:0] inp_waddr, inp_raddr;
  logic [INP_LANE-1:0] inp_wdata;  // one beat (vdla_beat_writer)
  logic [vdla_pkg::INP_ENTRY_BITS-1:0] inp_rdata;
  logic inp_re;
  // STORE INP's writes (extension inp_writeback): whole entries, in the
  // cycles in which the load module writes none.
  logic s_inp_we;
  logic [vdla_pkg::INP_IDX_BITS-1:0] s_inp_waddr;
  logic [vdla_pkg::OUT_ENTRY_BITS-1:0] s_inp_wdata;
  wire load_writes_inp = |inp_we;
  if (vdla_pkg::INP_WRITEBACK != 0) begin : g_inp_writeback
    // One write port for both writers: the load module's beat repeated
    // across the entry (its lane enables pick the lanes), or the store's
    // entry with every lane enabled.
    localparam int INP_LANES = vdla_pkg::INP_ENTRY_BITS / INP_LANE;
    wire [INP_LANES-1:0] we_any = load_writes_inp ? inp_we : {INP_LANES{s_inp_we}};
    wire [vdla_pkg::INP_IDX_BITS-1:0] waddr_any = load_writes_inp ? inp_waddr : s_inp_waddr;
    wire [vdla_pkg::INP_ENTRY_BITS-1:0] wdata_any =
        load_writes_inp ? {INP_LANES{inp_wdata}} : vdla_pkg::INP_ENTRY_BITS'(s_inp_wdata);
    vdla_ram #(.WIDTH(vdla_pkg::INP_ENTRY_BITS), .DEPTH(vdla_pkg::INP_DEPTH), .LANE(INP_LANE), .ULTRA(vdla_pkg::INP_ULTRARAM != 0)) inp_mem (
        .clk, .we(we_any), .waddr(waddr_any), .wdata(wdata_any), .re(inp_re), .raddr(inp_raddr), .rdata(inp_rdata)
    );
  end else begin : g_inp_load_only
    vdla_ram #(.WIDTH(vdla_pkg::INP_ENTRY_BITS), .DEPTH(vdla_pkg::INP_DEPTH), .LANE(INP_LANE), .WDATA_BITS(INP_LANE), .ULTRA(vdla_pkg::INP_ULTRARAM != 0)) inp_mem (
        .clk, .we(inp_we), .waddr(inp_waddr), .wdata(inp_wdata), .re(inp_re), .raddr(inp_raddr), .rdata(inp_rdata)
    );
    logic unused_store_inp;
    assign unused_store_inp = s_inp_we ^ (|s_inp_waddr) ^ (|s_inp_wdata);
  end
  logic [vdla_pkg::WGT_ENTRY_BITS/WGT_LANE-1:0] wgt_we;
  logic [vdla_pkg::WGT_IDX_BITS-1:0] wgt_waddr, wgt_raddr;
  logic [WGT_LANE-1:0] wgt_wdata;
  logic [vdla_pkg::WGT_ENTRY_BITS-1:0] wgt_rdata;
  logic wgt_re;
  vdla_ram #(.WIDTH(vdla_pkg::WGT_ENTRY_BITS), .DEPTH(vdla_pkg::WGT_DEPTH), .LANE(WGT_LANE), .WDATA_BITS(WGT_LANE), .ULTRA(vdla_pkg::WGT_ULTRARAM != 0)) wgt_mem (
      .clk, .we(wgt_we), .waddr(wgt_waddr), .wdata(wgt_wdata), .re(wgt_re), .raddr(wgt_raddr), .rdata(wgt_rdata)
  );
  logic out_we, out_re;
  logic [vdla_pkg::OUT_IDX_BITS-1:0] out_waddr, out_raddr;
  logic [vdla_pkg::OUT_ENTRY_BITS-1:0] out_wdata, out_rdata;
  vdla_ram #(.WIDTH(vdla_pkg::OUT_ENTRY_BITS), .DEPTH(vdla_pkg::OUT_DEPTH), .ULTRA(vdla_pkg::OUT_ULTRARAM != 0)) out_mem (
      .clk, .we(out_we), .waddr(out_waddr), .wdata(out_wdata), .re(out_re), .raddr(out_raddr), .rdata(out_rdata)
  );

  // ---------------- modules ----------------
  wire halt = error;
  logic f_err, l_err, c_err, s_err;
  logic [7:0] f_code, l_code, c_code, s_code;
  logic [31:0] f_index, l_index, c_index, s_index;
  logic [31:0] f_err_index, f_info, l_info, c_info, s_info;
  logic [3:0] f_state, l_state, c_state, s_state;
  logic fetch_done, finish;
  logic l_wait, c_wait, s_wait, gemm_fire, alu_fire;

  vdla_fetch fetch (
      .clk, .rst, .start(start && !running), .insn_addr, .insn_count, .halt,
      .ar_valid(rq_valid[0]), .ar_ready(rq_ready[0]), .ar_addr(f_ar_addr), .ar_len(f_ar_len),
      .r_valid(r_to[0]), .r_data(m_axi_rdata), .r_last(m_axi_rlast), .r_resp(m_axi_rresp),
      .q_full, .q_push, .q_data, .dispatched_all(fetch_done),
      .err_valid(f_err), .err_code(f_code), .err_index(f_err_index), .err_info(f_info),
      .index(f_index), .state(f_state)
  );

  vdla_load load (
      .clk, .rst, .halt, .q_empty(q_empty[0]), .q_head(q_head[0]), .q_pop(q_pop[0]),
      .next_avail(t_avail[1]), .next_room(t_room[0]), .pop_next(t_pop[1]), .push_next(t_push[0]),
      .ar_valid(rq_valid[1]), .ar_ready(rq_ready[1]), .ar_addr(l_ar_addr), .ar_len(l_ar_len), .ar_size(l_ar_size),
      .r_valid(r_to[1]), .r_data(m_axi_rdata), .r_last(m_axi_rlast), .r_resp(m_axi_rresp),
      .inp_we, .inp_waddr, .inp_wdata, .wgt_we, .wgt_waddr, .wgt_wdata,
      .err_valid(l_err), .err_code(l_code), .err_info(l_info), .index(l_index), .state(l_state), .wait_dram(l_wait)
  );

  vdla_compute compute (
      .clk, .rst, .halt, .q_empty(q_empty[1]), .q_head(q_head[1]), .q_pop(q_pop[1]),
      .prev_avail(t_avail[0]), .next_avail(t_avail[3]), .prev_room(t_room[1]), .next_room(t_room[2]),
      .pop_prev(t_pop[0]), .pop_next(t_pop[3]), .push_prev(t_push[1]), .push_next(t_push[2]),
      .ar_valid(rq_valid[2]), .ar_ready(rq_ready[2]), .ar_addr(c_ar_addr), .ar_len(c_ar_len), .ar_size(c_ar_size),
      .r_valid(r_to[2]), .r_data(m_axi_rdata), .r_last(m_axi_rlast), .r_resp(m_axi_rresp),
      .inp_re, .inp_raddr, .inp_rdata, .wgt_re, .wgt_raddr, .wgt_rdata,
      .out_we, .out_waddr, .out_wdata,
      .finish, .err_valid(c_err), .err_code(c_code), .err_info(c_info), .index(c_index), .state(c_state),
      .wait_dram(c_wait), .gemm_fire, .alu_fire
  );

  logic unused_s_pop_next, unused_s_push_next;
  vdla_store store (
      .clk, .rst, .halt, .q_empty(q_empty[2]), .q_head(q_head[2]), .q_pop(q_pop[2]),
      .prev_avail(t_avail[2]), .prev_room(t_room[3]), .pop_prev(t_pop[2]), .push_prev(t_push[3]),
      .aw_valid(m_axi_awvalid), .aw_ready(m_axi_awready), .aw_addr(m_axi_awaddr), .aw_len(m_axi_awlen),
      .w_valid(m_axi_wvalid), .w_ready(m_axi_wready), .w_data(m_axi_wdata), .w_last(m_axi_wlast),
      .b_valid(m_axi_bvalid), .b_resp(m_axi_bresp),
      .out_re, .out_raddr, .out_rdata,
      .inp_busy(load_writes_inp), .inp_we(s_inp_we), .inp_waddr(s_inp_waddr), .inp_wdata(s_inp_wdata),
      .err_valid(s_err), .err_code(s_code), .err_info(s_info), .index(s_index), .state(s_state), .wait_dram(s_wait)
  );

  // ---------------- run state and the first error ----------------
  wire all_drained = fetch_done && finish_seen && &q_empty;
  wire tokens_left = t_count[0] != 0 || t_count[1] != 0 || t_count[2] != 0 || t_count[3] != 0;
  always_ff @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      done <= 1'b0;
      error <= 1'b0;
      err_code <= '0;
      err_module <= '0;
      err_index <= '0;
      err_info <= '0;
      finish_seen <= 1'b0;
    end else begin
      if (start && !running) begin
        running <= 1'b1;
        done <= 1'b0;
        error <= 1'b0;
        err_code <= '0;
        err_index <= '0;
        err_info <= '0;
        finish_seen <= 1'b0;
      end else if (running) begin
        if (finish) finish_seen <= 1'b1;
        if (!error && (f_err || l_err || c_err || s_err)) begin
          error <= 1'b1;
          running <= 1'b0;
          if (f_err) begin
            err_code <= f_code;
            err_module <= 2'd0;
            err_index <= f_err_index;
            err_info <= f_info;
          end else if (l_err) begin
            err_code <= l_code;
            err_module <= 2'd1;
            err_index <= l_index;
            err_info <= l_info;
          end else if (c_err) begin
            err_code <= c_code;
            err_module <= 2'd2;
            err_index <= c_index;
            err_info <= c_info;
          end else begin
            err_code <= s_code;
            err_module <= 2'd3;
            err_index <= s_index;
            err_info <= s_info;
          end
        end else if (all_drained) begin
          running <= 1'b0;
          if (tokens_left) begin
            error <= 1'b1;
            err_code <= vdla_pkg::E_TOKENS_LEFT;
            err_module <= 2'd2;
            err_index <= insn_count - 1;
            err_info <= {t_count[3], t_count[2], t_count[1], t_count[0]};
          end else begin
            done <= 1'b1;
          end
        end
      end
    end
  end

  // ---------------- counters ----------------
  // The counters and their order are vdla_pkg's CNT_* (generated from
  // vdla/hw/interface_table.h); each is given its event here.
  // Each counter is its own register, always written (no per-element delayed
  // assignment bookkeeping for an array), and its event comes from a function
  // of the (constant) counter number called inside its always_ff: the
  // Verilated model evaluates each event once per rising edge. (A continuous
  // vector of the 18 events, fed by logic that depends on the AXI inputs, was
  // re-evaluated at both clock edges.)
  function automatic logic counter_event(input int i);
    case (i)
      vdla_pkg::CNT_CYCLES: counter_event = 1'b1;
      vdla_pkg::CNT_FETCH_BUSY: counter_event = f_state == vdla_pkg::S_BUSY;
      vdla_pkg::CNT_FETCH_WAIT_DRAM: counter_event = f_state == vdla_pkg::S_FETCH_WAIT_DRAM;
      vdla_pkg::CNT_FETCH_WAIT_QUEUE: counter_event = f_state == vdla_pkg::S_FETCH_WAIT_QUEUE;
      vdla_pkg::CNT_LOAD_BUSY: counter_event = l_state == vdla_pkg::S_BUSY;
      vdla_pkg::CNT_LOAD_WAIT_TOKEN: counter_event = l_state == vdla_pkg::S_WAIT_TOKEN;
      vdla_pkg::CNT_LOAD_WAIT_ROOM: counter_event = l_state == vdla_pkg::S_WAIT_ROOM;
      vdla_pkg::CNT_LOAD_WAIT_DRAM: counter_event = l_wait;
      vdla_pkg::CNT_COMPUTE_BUSY: counter_event = c_state == vdla_pkg::S_BUSY;
      vdla_pkg::CNT_COMPUTE_WAIT_TOKEN: counter_event = c_state == vdla_pkg::S_WAIT_TOKEN;
      vdla_pkg::CNT_COMPUTE_WAIT_ROOM: counter_event = c_state == vdla_pkg::S_WAIT_ROOM;
      vdla_pkg::CNT_COMPUTE_WAIT_DRAM: counter_event = c_wait;
      vdla_pkg::CNT_STORE_BUSY: counter_event = s_state == vdla_pkg::S_BUSY;
      vdla_pkg::CNT_STORE_WAIT_TOKEN: counter_event = s_state == vdla_pkg::S_WAIT_TOKEN;
      vdla_pkg::CNT_STORE_WAIT_ROOM: counter_event = s_state == vdla_pkg::S_WAIT_ROOM;
      vdla_pkg::CNT_STORE_WAIT_DRAM: counter_event = s_wait;
      vdla_pkg::CNT_GEMM_UOPS: counter_event = gemm_fire;
      vdla_pkg::CNT_ALU_VECTORS: counter_event = alu_fire;
      default: counter_event = 1'b0;
    endcase
  endfunction
  wire clear_counters = rst || (start && !running);
  logic [64*NUM_COUNTERS-1:0] counters_flat;
  for (genvar i = 0; i < NUM_COUNTERS; i++) begin : g_counter
    logic [63:0] value;
    always_ff @(posedge clk) value <= clear_counters ? 64'd0 : value + 64'(running && counter_event(i));
    assign counters_flat[i*64+:64] = value;
  end

  vdla_ctrl_regs #(.NUM_COUNTERS(NUM_COUNTERS)) regs (
      .clk, .rst,
      .awvalid(s_axil_awvalid), .awready(s_axil_awready), .awaddr(s_axil_awaddr),
      .wvalid(s_axil_wvalid), .wready(s_axil_wready), .wdata(s_axil_wdata),
      .bvalid(s_axil_bvalid), .bready(s_axil_bready), .bresp(s_axil_bresp),
      .arvalid(s_axil_arvalid), .arready(s_axil_arready), .araddr(s_axil_araddr),
      .rvalid(s_axil_rvalid), .rready(s_axil_rready), .rdata(s_axil_rdata), .rresp(s_axil_rresp),
      .start, .insn_addr, .insn_addr_hi, .insn_count,
      .running, .done, .error,
      .error_code({22'd0, err_module, err_code}), .error_index(err_index), .error_info(err_info),
      .module_state({16'd0, s_state, c_state, l_state, f_state}),
      .module_index({s_index, c_index, l_index, f_index}),
      .tokens({t_count[3], t_count[2], t_count[1], t_count[0]}),
      .queues({25'd0, q_empty, 1'b0, q_full}),
      .counters(counters_flat)
  );

  assign trace_load = {l_state, l_index[27:0]};
  assign trace_compute = {c_state, c_index[27:0]};
  assign trace_store = {s_state, s_index[27:0]};
`ifndef SYNTHESIS
`ifndef VDLA_NO_ASSERTIONS
  // Run-time checks (simulation only: synthesis defines SYNTHESIS, and the fast
  // cycle model defines VDLA_NO_ASSERTIONS). See docs/hardware.md, "Assertions".
  // AXI master rules at the ports, checked independently of the masters' own
  // bookkeeping: a valid address is held, unchanged, until accepted; no burst
  // is longer than the largest MAX_BURST of the masters (32 beats) or crosses
  // 4 KiB; the write beats of each accepted burst number its awlen + 1 with
  // wlast on the last (the lengths of accepted bursts wait in a FIFO).
  localparam int CHK_MAX_BURST = vdla_pkg::AXI_MAX_BURST;
  logic chk_ar_wait, chk_aw_wait;
  logic [31:0] chk_araddr, chk_awaddr;
  logic [7:0] chk_arlen, chk_awlen;
  logic [2:0] chk_arsize;
  logic [1:0] chk_arid;
  logic [7:0] chk_wlen[16];
  logic [3:0] chk_wwr, chk_wrd;
  logic [4:0] chk_wcount;  // accepted bursts whose last beat is not sent yet
  logic [7:0] chk_wbeat;
  wire chk_aw_fire = m_axi_awvalid && m_axi_awready;
  wire chk_w_fire = m_axi_wvalid && m_axi_wready;
  always @(posedge clk) begin
    if (rst) begin
      chk_ar_wait <= 1'b0;
      chk_aw_wait <= 1'b0;
      chk_wwr <= '0;
      chk_wrd <= '0;
      chk_wcount <= '0;
      chk_wbeat <= '0;
    end else begin
      if (chk_ar_wait) begin
        assert (m_axi_arvalid) else $error("vdla_top: arvalid dropped before arready");
        assert (m_axi_araddr == chk_araddr && m_axi_arlen == chk_arlen && m_axi_arsize == chk_arsize &&
                m_axi_arid == chk_arid)
        else $error("vdla_top: araddr/arlen/arsize/arid changed while arvalid waited for arready");
      end
      if (chk_aw_wait) begin
        assert (m_axi_awvalid) else $error("vdla_top: awvalid dropped before awready");
        assert (m_axi_awaddr == chk_awaddr && m_axi_awlen == chk_awlen)
        else $error("vdla_top: awaddr/awlen changed while awvalid waited for awready");
      end
      if (m_axi_arvalid) begin
        assert (32'(m_axi_arlen) < CHK_MAX_BURST)
        else $error("vdla_top: read burst of %0d beats above %0d", 32'(m_axi_arlen) + 1, CHK_MAX_BURST);
        assert (32'(m_axi_araddr[11:0]) + ((32'(m_axi_arlen) + 1) << m_axi_arsize) <= 4096)
        else $error("vdla_top: read burst at 0x%08x of %0d beats crosses 4 KiB", m_axi_araddr, 32'(m_axi_arlen) + 1);
      end
      if (m_axi_awvalid) begin
        assert (32'(m_axi_awlen) < CHK_MAX_BURST)
        else $error("vdla_top: write burst of %0d beats above %0d", 32'(m_axi_awlen) + 1, CHK_MAX_BURST);
        assert (32'(m_axi_awaddr[11:0]) + ((32'(m_axi_awlen) + 1) << m_axi_awsize) <= 4096)
        else $error("vdla_top: write burst at 0x%08x of %0d beats crosses 4 KiB", m_axi_awaddr, 32'(m_axi_awlen) + 1);
      end
      chk_ar_wait <= m_axi_arvalid && !m_axi_arready;
      chk_araddr <= m_axi_araddr;
      chk_arlen <= m_axi_arlen;
      chk_arsize <= m_axi_arsize;
      chk_arid <= m_axi_arid;
      chk_aw_wait <= m_axi_awvalid && !m_axi_awready;
      chk_awaddr <= m_axi_awaddr;
      chk_awlen <= m_axi_awlen;

      if (chk_aw_fire) begin
        chk_wlen[chk_wwr] <= m_axi_awlen;
        chk_wwr <= chk_wwr + 1'b1;
      end
      if (chk_w_fire) begin
        assert (chk_wcount != 0) else $error("vdla_top: write beat before its burst's address was accepted");
        if (chk_wcount != 0)
          assert (m_axi_wlast == (chk_wbeat == chk_wlen[chk_wrd]))
          else $error("vdla_top: wlast=%0d on beat %0d of a burst of %0d beats", m_axi_wlast, 32'(chk_wbeat) + 1,
                      32'(chk_wlen[chk_wrd]) + 1);
        if (m_axi_wlast) begin
          chk_wbeat <= '0;
          chk_wrd <= chk_wrd + 1'b1;
        end else chk_wbeat <= chk_wbeat + 1'b1;
      end
      chk_wcount <= chk_wcount + 5'(chk_aw_fire) - 5'(chk_w_fire && m_axi_wlast);
      assert (chk_wcount < 5'd16) else $error("vdla_top: %0d write bursts await their data, above 15", chk_wcount);
    end
  end
`endif
`endif
endmodule
