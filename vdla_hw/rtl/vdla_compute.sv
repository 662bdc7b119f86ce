// The compute module: LOAD UOP/ACC/ACC8 (through a 2-D read engine on AXI ID 2),
// GEMM, DWGEMM, ALU, SETREQ and FINISH, in order. Owns the UOP and ACC
// memories and writes OUT.
//
// GEMM and ALU share one fixed-latency pipeline fed by the loop nest:
//   S0  loop nest -> UOP read
//   S1  dst/src/wgt = micro-op + offsets; index range checks
//   S2  INP/WGT reads (GEMM)
//   S3  products (GEMM); ACC[src] read (ALU with tensor operand, unless the
//       operand register holds it)
//   S4  adder trees (GEMM); src operand arrives; ACC[dst] read
//   S5  ACC[dst] arrives; accumulate or ALU op; write ACC[dst] and OUT[dst]
// The ACC read-modify-write hazard: an ACC read at edge E misses only the write
// made at the same edge (earlier writes are in the RAM), so data arriving in a
// cycle is replaced by `last_wr` when that write hit the same entry. With one
// micro-op per cycle, S4's dst read of op n+1 meets S5's write of op n exactly
// at one edge, so one level of forwarding is exact.
//
// The ALU with a tensor operand needs ACC[dst] and ACC[src] on the one read
// port (a second port doubles the ACC block RAM: extension acc_dual_read,
// below). The src read of op n in
// S3 would collide with the dst read of op n-1 in S4, so such an op waits one
// cycle in S1 when op n-1 is right ahead of it: two cycles per vector. Most
// tensor operands are parameter vectors that stay the same for many vectors,
// so the compute module keeps an operand register: `src_operand` holds
// ACC[opr_idx] as of the micro-op in S5, and every S5 write to opr_idx updates
// it with the written value, so it stays equal to the entry in program order
// (including dst == src and a dst loop passing over the src). An op whose src
// equals the src of the previous tensor-operand op (`opr_tag`, tracked in S1,
// where issue is decided) skips the read and the wait: one vector per cycle.
// LOAD ACC/ACC8 writes to the tagged entry clear the tag (they run only when
// the pipeline is empty, so tag and register agree then); the next op reads.
// A read op m is never preceded by an op one stage ahead, so no S5 write
// coincides with the edge at which m loads the register, and its S3 read
// meets only the write of the op two ahead, which `last_wr` forwards.
// An ALU with bias_clear (extension alu_bias_clear) also needs ACC[src+1]; a
// second register, `bias_operand`, follows it the same way, and a miss costs
// a bias fetch (a bubble op that only reads) ahead of the op.
// An instruction completes when the pipeline has drained, so LOADs into ACC and
// the next instruction never overlap it.
//
// Extension acc_dual_read: a copy of ACC that takes every write of the first
// (the same write port signals) serves the src and bias reads of S3, and the
// first keeps S4's dst reads and SETREQ's. A tensor-operand op or a bias
// fetch then never waits for the op ahead of it: one vector per cycle. Its
// S3 read now also misses the write of the op one stage ahead, which S5
// makes at the edge where the read data is taken into the register, so that
// edge takes S5's result when it writes the entry read (the newest value),
// else `last_wr` as before. Without the extension that case cannot arise
// and the forwarding path is not built.
//
// Extension gemm_requant: SETREQ loads the requantisation registers req_op,
// req_imm, req_operand (ACC[sram_base]) and req_bias (ACC[sram_base+1])
// through the control FSM alone: the range check, then the two entries read
// on the ACC read port in consecutive cycles (the pipeline is empty, and the
// last pipeline or LOAD write lies edges behind, so no forwarding is needed).
// A GEMM with `requant` carries `fresh` (u == uop_begin) down S1..S5; in S5
// a fresh op accumulates onto req_bias instead of ACC[dst] (its ACC[dst] read
// still happens and is ignored), writes the sum to ACC[dst] as always, and
// OUT[dst] gets the low byte of alu_lane(req_op, sum, req_operand, req_imm):
// the ALU's own lanes, their inputs muxed, not a second copy.
module vdla_compute (
    input  logic         clk,
    input  logic         rst,
    input  logic         halt,
    input  logic         q_empty,
    input  logic [159:0] q_head,
    output logic         q_pop,
    input  logic         prev_avail,  // load->compute
    input  logic         next_avail,  // store->compute
    input  logic         prev_room,   // compute->load
    input  logic         next_room,   // compute->store
    output logic         pop_prev,
    output logic         pop_next,
    output logic         push_prev,
    output logic         push_next,
    // AXI read
    output logic         ar_valid,
    input  logic         ar_ready,
    output logic [31:0]  ar_addr,
    output logic [7:0]   ar_len,
    output logic [2:0]   ar_size,
    input  logic         r_valid,
    input  logic [vdla_pkg::AXI_DATA_BITS-1:0] r_data,
    input  logic         r_last,
    input  logic [1:0]   r_resp,
    // INP and WGT read ports
    output logic         inp_re,
    output logic [vdla_pkg::INP_IDX_BITS-1:0] inp_raddr,
    input  logic [vdla_pkg::INP_ENTRY_BITS-1:0] inp_rdata,
    output logic         wgt_re,
    output logic [vdla_pkg::WGT_IDX_BITS-1:0] wgt_raddr,
    input  logic [vdla_pkg::WGT_ENTRY_BITS-1:0] wgt_rdata,
    // OUT write port
    output logic         out_we,
    output logic [vdla_pkg::OUT_IDX_BITS-1:0] out_waddr,
    output logic [vdla_pkg::OUT_ENTRY_BITS-1:0] out_wdata,
    // status
    output logic         finish,     // FINISH executed (pulse)
    output logic         err_valid,
    output logic [7:0]   err_code,
    output logic [31:0]  err_info,
    output logic [31:0]  index,
    output logic [3:0]   state,
    output logic         wait_dram,
    output logic         gemm_fire,  // the GEMM core consumed a micro-op
    output logic         alu_fire    // the ALU processed a vector
);
  localparam int LANES = vdla_pkg::BATCH * vdla_pkg::BLOCK_OUT;  // int32 elements of an ACC entry
  localparam int ACC_W = vdla_pkg::ACC_ENTRY_BITS;
  localparam int AXI = vdla_pkg::AXI_DATA_BITS;
  localparam int ACC_BEAT = (ACC_W < AXI) ? ACC_W : AXI;  // LOAD ACC bits per beat
  localparam int ACC8_BEAT = (vdla_pkg::ACC8_ENTRY_BITS < AXI) ? vdla_pkg::ACC8_ENTRY_BITS : AXI;
  localparam bit DualRead = vdla_pkg::ACC_DUAL_READ != 0;  // extension acc_dual_read

  logic start, done;
  logic [127:0] insn;
  vdla_sequencer seq (
      .clk, .rst, .halt, .q_empty, .q_head, .q_pop,
      .prev_avail, .next_avail, .prev_room, .next_room,
      .pop_prev, .pop_next, .push_prev, .push_next,
      .start, .insn, .index, .done, .state
  );

  // ---------------- decode ----------------
  wire [2:0] opcode = insn[vdla_pkg::LOAD_OPCODE_LSB+:3];
  wire is_load = opcode == 3'(vdla_pkg::OPCODE_LOAD);
  wire is_gemm = opcode == 3'(vdla_pkg::OPCODE_GEMM);
  wire is_alu = opcode == 3'(vdla_pkg::OPCODE_ALU);
  // DWGEMM: fetch refuses it on configs without the extension
  wire is_dw = vdla_pkg::DEPTHWISE_TAPS != 0 && opcode == 3'(vdla_pkg::OPCODE_DWGEMM);
  wire is_mm = is_gemm || is_dw;  // reads INP and WGT and runs the GEMM core
  // SETREQ and the GEMM flag requant (extension gemm_requant; fetch refuses
  // both on configs without it, and then neither exists here)
  wire is_setreq = vdla_pkg::GEMM_REQUANT != 0 && opcode == 3'(vdla_pkg::OPCODE_SETREQ);
  // A GEMM or DWGEMM with requant (extension gemm_requant): the same S5 path.
  wire gemm_rq = vdla_pkg::GEMM_REQUANT != 0 &&
      ((is_gemm && insn[vdla_pkg::GEMM_REQUANT_BIT]) || (is_dw && insn[vdla_pkg::DWGEMM_REQUANT_BIT]));
  wire [2:0] memory = insn[vdla_pkg::LOAD_MEMORY_LSB+:3];
  wire ld_uop = memory == 3'(vdla_pkg::MEM_UOP);
  wire ld_acc8 = memory == 3'(vdla_pkg::MEM_ACC8);

  // LOAD fields and SRAM range
  wire [31:0] sram_base = 32'(insn[vdla_pkg::LOAD_SRAM_BASE_LSB+:vdla_pkg::LOAD_SRAM_BASE_W]);
  wire [31:0] y_size = 32'(insn[vdla_pkg::LOAD_Y_SIZE_LSB+:vdla_pkg::LOAD_Y_SIZE_W]);
  wire [31:0] x_size = 32'(insn[vdla_pkg::LOAD_X_SIZE_LSB+:vdla_pkg::LOAD_X_SIZE_W]);
  wire [vdla_pkg::LOAD_Y_PAD_TOP_W-1:0] pad_top = insn[vdla_pkg::LOAD_Y_PAD_TOP_LSB+:vdla_pkg::LOAD_Y_PAD_TOP_W];
  wire [vdla_pkg::LOAD_Y_PAD_BOTTOM_W-1:0] pad_bottom = insn[vdla_pkg::LOAD_Y_PAD_BOTTOM_LSB+:vdla_pkg::LOAD_Y_PAD_BOTTOM_W];
  wire [vdla_pkg::LOAD_X_PAD_LEFT_W-1:0] pad_left = insn[vdla_pkg::LOAD_X_PAD_LEFT_LSB+:vdla_pkg::LOAD_X_PAD_LEFT_W];
  wire [vdla_pkg::LOAD_X_PAD_RIGHT_W-1:0] pad_right = insn[vdla_pkg::LOAD_X_PAD_RIGHT_LSB+:vdla_pkg::LOAD_X_PAD_RIGHT_W];
  logic [63:0] block_end;
  vdla_load_range range (
      .sram_base, .y_size, .x_size, .pad_top(32'(pad_top)), .pad_bottom(32'(pad_bottom)), .pad_left(32'(pad_left)),
      .pad_right(32'(pad_right)), .block_end
  );
  wire [63:0] load_depth = ld_uop ? 64'(vdla_pkg::UOP_DEPTH) : 64'(vdla_pkg::ACC_DEPTH);
  wire [3:0] load_entry_log2 = ld_uop ? 4'($clog2(vdla_pkg::UOP_ENTRY_BITS / 8)) :
      (ld_acc8 ? 4'($clog2(vdla_pkg::ACC8_ENTRY_BITS / 8)) : 4'($clog2(vdla_pkg::ACC_ENTRY_BITS / 8)));

  // GEMM / ALU fields (the loop nest fields differ in position between them)
  wire gemm_reset = is_gemm && insn[vdla_pkg::GEMM_RESET_LSB];  // the bit is a DWGEMM field
  wire [vdla_pkg::ALU_ALU_OP_W-1:0] alu_op = insn[vdla_pkg::ALU_ALU_OP_LSB+:vdla_pkg::ALU_ALU_OP_W];
  wire use_imm = insn[vdla_pkg::ALU_USE_IMM_LSB];
  wire [31:0] imm = 32'($signed(insn[vdla_pkg::ALU_IMM_LSB+:vdla_pkg::ALU_IMM_W]));
  wire [31:0] uop_begin = is_gemm ? 32'(insn[vdla_pkg::GEMM_UOP_BEGIN_LSB+:vdla_pkg::GEMM_UOP_BEGIN_W]) :
      is_dw ? 32'(insn[vdla_pkg::DWGEMM_UOP_BEGIN_LSB+:vdla_pkg::DWGEMM_UOP_BEGIN_W]) :
      32'(insn[vdla_pkg::ALU_UOP_BEGIN_LSB+:vdla_pkg::ALU_UOP_BEGIN_W]);
  wire [31:0] uop_end = is_gemm ? 32'(insn[vdla_pkg::GEMM_UOP_END_LSB+:vdla_pkg::GEMM_UOP_END_W]) :
      is_dw ? 32'(insn[vdla_pkg::DWGEMM_UOP_END_LSB+:vdla_pkg::DWGEMM_UOP_END_W]) :
      32'(insn[vdla_pkg::ALU_UOP_END_LSB+:vdla_pkg::ALU_UOP_END_W]);
  wire [31:0] iter_out = is_gemm ? 32'(insn[vdla_pkg::GEMM_ITER_OUT_LSB+:vdla_pkg::GEMM_ITER_OUT_W]) :
      is_dw ? 32'(insn[vdla_pkg::DWGEMM_ITER_OUT_LSB+:vdla_pkg::DWGEMM_ITER_OUT_W]) :
      32'(insn[vdla_pkg::ALU_ITER_OUT_LSB+:vdla_pkg::ALU_ITER_OUT_W]);
  wire [31:0] iter_in = is_gemm ? 32'(insn[vdla_pkg::GEMM_ITER_IN_LSB+:vdla_pkg::GEMM_ITER_IN_W]) :
      is_dw ? 32'(insn[vdla_pkg::DWGEMM_ITER_IN_LSB+:vdla_pkg::DWGEMM_ITER_IN_W]) :
      32'(insn[vdla_pkg::ALU_ITER_IN_LSB+:vdla_pkg::ALU_ITER_IN_W]);
  wire [31:0] dst_out = is_gemm ? 32'(insn[vdla_pkg::GEMM_DST_FACTOR_OUT_LSB+:vdla_pkg::GEMM_DST_FACTOR_OUT_W]) :
      is_dw ? 32'(insn[vdla_pkg::DWGEMM_DST_FACTOR_OUT_LSB+:vdla_pkg::DWGEMM_DST_FACTOR_OUT_W]) :
      32'(insn[vdla_pkg::ALU_DST_FACTOR_OUT_LSB+:vdla_pkg::ALU_DST_FACTOR_OUT_W]);
  wire [31:0] dst_in = is_gemm ? 32'(insn[vdla_pkg::GEMM_DST_FACTOR_IN_LSB+:vdla_pkg::GEMM_DST_FACTOR_IN_W]) :
      is_dw ? 32'(insn[vdla_pkg::DWGEMM_DST_FACTOR_IN_LSB+:vdla_pkg::DWGEMM_DST_FACTOR_IN_W]) :
      32'(insn[vdla_pkg::ALU_DST_FACTOR_IN_LSB+:vdla_pkg::ALU_DST_FACTOR_IN_W]);
  wire [31:0] src_out = is_gemm ? 32'(insn[vdla_pkg::GEMM_SRC_FACTOR_OUT_LSB+:vdla_pkg::GEMM_SRC_FACTOR_OUT_W]) :
      is_dw ? 32'(insn[vdla_pkg::DWGEMM_SRC_FACTOR_OUT_LSB+:vdla_pkg::DWGEMM_SRC_FACTOR_OUT_W]) :
      32'(insn[vdla_pkg::ALU_SRC_FACTOR_OUT_LSB+:vdla_pkg::ALU_SRC_FACTOR_OUT_W]);
  wire [31:0] src_in = is_gemm ? 32'(insn[vdla_pkg::GEMM_SRC_FACTOR_IN_LSB+:vdla_pkg::GEMM_SRC_FACTOR_IN_W]) :
      is_dw ? 32'(insn[vdla_pkg::DWGEMM_SRC_FACTOR_IN_LSB+:vdla_pkg::DWGEMM_SRC_FACTOR_IN_W]) :
      32'(insn[vdla_pkg::ALU_SRC_FACTOR_IN_LSB+:vdla_pkg::ALU_SRC_FACTOR_IN_W]);
  wire [31:0] wgt_out = is_gemm ? 32'(insn[vdla_pkg::GEMM_WGT_FACTOR_OUT_LSB+:vdla_pkg::GEMM_WGT_FACTOR_OUT_W]) :
      is_dw ? 32'(insn[vdla_pkg::DWGEMM_WGT_FACTOR_OUT_LSB+:vdla_pkg::DWGEMM_WGT_FACTOR_OUT_W]) : '0;
  wire [31:0] wgt_in = is_gemm ? 32'(insn[vdla_pkg::GEMM_WGT_FACTOR_IN_LSB+:vdla_pkg::GEMM_WGT_FACTOR_IN_W]) : '0;
  wire [3:0] dw_taps = 4'(insn[vdla_pkg::DWGEMM_TAPS_LSB+:vdla_pkg::DWGEMM_TAPS_W]);
  wire [1:0] dw_stride = 2'(insn[vdla_pkg::DWGEMM_STRIDE_LSB+:vdla_pkg::DWGEMM_STRIDE_W]);
  // DWGEMM's lane_block, encoded only where block_in exceeds block_out.
  localparam int LANE_BLOCK_W = vdla_pkg::DWGEMM_LANE_BLOCK_BITS > 0 ? vdla_pkg::DWGEMM_LANE_BLOCK_BITS : 1;
  logic [LANE_BLOCK_W-1:0] dw_lane_block;
  if (vdla_pkg::DWGEMM_LANE_BLOCK_BITS > 0) begin : g_lane_block
    assign dw_lane_block = insn[vdla_pkg::DWGEMM_LANE_BLOCK_BIT+:LANE_BLOCK_W];
  end else begin : g_no_lane_block
    assign dw_lane_block = '0;
  end
  wire tensor_alu = is_alu && !use_imm;
  // bias_clear (extension alu_bias_clear): the first operand gains ACC[src+1]
  // (with a tensor operand), the result goes to OUT only and ACC[dst] is zeroed.
  wire bias_clear = vdla_pkg::ALU_BIAS_CLEAR != 0 && is_alu && insn[vdla_pkg::ALU_BIAS_CLEAR_BIT];
  wire bias_alu = bias_clear && !use_imm;
  // SETREQ fields
  wire [vdla_pkg::SETREQ_ALU_OP_W-1:0] setreq_op = insn[vdla_pkg::SETREQ_ALU_OP_LSB+:vdla_pkg::SETREQ_ALU_OP_W];
  wire [31:0] setreq_base = 32'(insn[vdla_pkg::SETREQ_SRAM_BASE_LSB+:vdla_pkg::SETREQ_SRAM_BASE_W]);
  wire [31:0] setreq_imm = 32'($signed(insn[vdla_pkg::SETREQ_IMM_LSB+:vdla_pkg::SETREQ_IMM_W]));

  // ---------------- control ----------------
  // One cycle after `start` the instruction is checked and dispatched to the
  // load engine or the loop nest; FINISH completes at once. SETREQ reads its
  // operand (C_REQ_OPR issues the read) and bias (C_REQ_BIAS) entries and
  // completes in C_REQ_END.
  localparam logic [2:0] C_IDLE = 3'd0, C_CHECK = 3'd1, C_LOAD = 3'd2, C_LOOP = 3'd3;
  localparam logic [2:0] C_REQ_OPR = 3'd4, C_REQ_BIAS = 3'd5, C_REQ_END = 3'd6;
  logic [2:0] cstate;
  logic engine_start, loop_start, loop_abort;
  logic x_done, x_busy, x_err_valid;
  logic [7:0] x_err_code;
  logic [31:0] x_err_info;
  logic idx_err;  // an index error found in S1 this cycle
  logic [7:0] idx_err_code;
  logic [31:0] idx_err_info;
  logic loop_active, pipe_busy;

  always_ff @(posedge clk) begin
    err_valid <= 1'b0;
    engine_start <= 1'b0;
    loop_start <= 1'b0;
    done <= 1'b0;
    finish <= 1'b0;
    if (rst) begin
      cstate <= C_IDLE;
      loop_abort <= 1'b0;
    end else begin
      case (cstate)
        C_IDLE: if (start) cstate <= C_CHECK;
        C_CHECK: begin
          if (is_load) begin
            if (block_end > load_depth) begin
              err_valid <= 1'b1;
              err_code <= vdla_pkg::E_SRAM_RANGE;
              err_info <= block_end[31:0];
              cstate <= C_IDLE;  // never completes; the error halts the run
            end else begin
              engine_start <= 1'b1;
              cstate <= C_LOAD;
            end
          end else if (is_mm || is_alu) begin
            if (uop_begin > uop_end || uop_end > vdla_pkg::UOP_DEPTH) begin
              err_valid <= 1'b1;
              err_code <= vdla_pkg::E_UOP_RANGE;
              err_info <= uop_end;
              cstate <= C_IDLE;
            end else begin
              loop_start <= 1'b1;
              loop_abort <= 1'b0;
              cstate <= C_LOOP;
            end
          end else if (is_setreq) begin
            if (setreq_base + 32'd1 >= vdla_pkg::ACC_DEPTH) begin  // the bias entry, like the ALU's src+1
              err_valid <= 1'b1;
              err_code <= vdla_pkg::E_SRC_RANGE;
              err_info <= setreq_base + 32'd1;
              cstate <= C_IDLE;
            end else begin
              cstate <= C_REQ_OPR;
            end
          end else begin  // FINISH
            done <= 1'b1;
            finish <= 1'b1;
            cstate <= C_IDLE;
          end
        end
        C_LOAD: begin
          if (x_err_valid) begin
            err_valid <= 1'b1;
            err_code <= x_err_code;
            err_info <= x_err_info;
          end
          if (x_done) begin
            done <= 1'b1;
            cstate <= C_IDLE;
          end
        end
        C_LOOP: begin
          if (idx_err) begin
            err_valid <= 1'b1;
            err_code <= idx_err_code;
            err_info <= idx_err_info;
            loop_abort <= 1'b1;
          end
          if (!loop_start && !loop_active && !pipe_busy && !loop_abort) begin
            done <= 1'b1;
            cstate <= C_IDLE;
          end
        end
        C_REQ_OPR: cstate <= C_REQ_BIAS;
        C_REQ_BIAS: cstate <= C_REQ_END;
        C_REQ_END: begin
          done <= 1'b1;
          cstate <= C_IDLE;
        end
        default: cstate <= C_IDLE;
      endcase
    end
  end

  // ---------------- load engine ----------------
  logic wr_valid, wr_zero;
  logic [31:0] wr_addr;
  logic [7:0] wr_beat;
  logic [AXI-1:0] wr_data;
  vdla_xfer_read xfer (
      .clk, .rst, .start(engine_start),
      .sram_base, .dram_base(32'(insn[vdla_pkg::LOAD_DRAM_BASE_LSB+:vdla_pkg::LOAD_DRAM_BASE_W])),
      .y_size, .x_size, .x_stride(32'(insn[vdla_pkg::LOAD_X_STRIDE_LSB+:vdla_pkg::LOAD_X_STRIDE_W])),
      .pad_top, .pad_bottom, .pad_left, .pad_right, .entry_log2(load_entry_log2),
      .ar_valid, .ar_ready, .ar_addr, .ar_len, .ar_size, .r_valid, .r_data, .r_last, .r_resp,
      .wr_valid, .wr_zero, .wr_addr, .wr_beat, .wr_data,
      .busy(x_busy), .done(x_done), .err_valid(x_err_valid), .err_code(x_err_code), .err_info(x_err_info),
      .wait_dram
  );

  // ---------------- loop nest (S0) ----------------
  logic lg_valid;
  logic s1_stall;  // the op in S1 waits a cycle (a tensor-operand src read)
  logic [31:0] lg_u, lg_dst, lg_src, lg_wgt;
  logic lg_wr, lg_first;
  vdla_loop_gen loop (
      .clk, .rst, .start(loop_start), .abort(loop_abort || idx_err), .hold(s1_stall),
      .uop_begin, .uop_end, .iter_out, .iter_in,
      .dst_out, .dst_in, .src_out, .src_in, .wgt_out, .wgt_in,
      .dw(is_dw), .taps(dw_taps), .stride(dw_stride),
      .valid(lg_valid), .wr(lg_wr), .first(lg_first),
      .u(lg_u), .dst_off(lg_dst), .src_off(lg_src), .wgt_off(lg_wgt), .active(loop_active)
  );

  // ---------------- UOP memory ----------------
  logic [31:0] uop_rdata;
  vdla_ram #(.WIDTH(32), .DEPTH(vdla_pkg::UOP_DEPTH), .ULTRA(vdla_pkg::UOP_ULTRARAM != 0)) uop_mem (
      .clk,
      .we(wr_valid && ld_uop && cstate == C_LOAD),
      .waddr(wr_addr[vdla_pkg::UOP_IDX_BITS-1:0]),
      .wdata(wr_data[31:0]),
      .re(lg_valid),
      .raddr(lg_u[vdla_pkg::UOP_IDX_BITS-1:0]),
      .rdata(uop_rdata)
  );

  // ---------------- S1: indices and range checks ----------------
  // While S1 stalls the loop nest holds (no UOP read, so uop_rdata stays) and
  // S1 keeps its op.
  // `wr`: the op writes ACC[dst] (DWGEMM's window fills do not, and their dst
  // is not checked); `first`: a DWGEMM inner run starts (the window empties).
  // `fresh`: a requantising GEMM's op with u == uop_begin, which starts its
  // iteration's reduction from req_bias (u < uop_end <= UOP_DEPTH, and
  // uop_begin <= u, so the low UOP_IDX_BITS compare exactly).
  logic s1_valid, s1_wr, s1_first, s1_fresh;
  logic [31:0] s1_dst_off, s1_src_off, s1_wgt_off;
  wire lg_fresh = gemm_rq && lg_u[vdla_pkg::UOP_IDX_BITS-1:0] == uop_begin[vdla_pkg::UOP_IDX_BITS-1:0];
  always_ff @(posedge clk) begin
    if (rst) s1_valid <= 1'b0;
    else if (!s1_stall) s1_valid <= lg_valid;
    if (!s1_stall) begin
      s1_dst_off <= lg_dst;
      s1_src_off <= lg_src;
      s1_wgt_off <= lg_wgt;
      s1_wr <= lg_wr;
      s1_first <= lg_first;
      s1_fresh <= lg_fresh;
    end
  end
  wire [31:0] d1 = 32'(uop_rdata[vdla_pkg::UOP_DST_BITS-1:0]) + s1_dst_off;
  wire [31:0] s1 = 32'(uop_rdata[vdla_pkg::UOP_DST_BITS+:vdla_pkg::UOP_SRC_BITS]) + s1_src_off;
  wire [31:0] w1 = 32'(uop_rdata[vdla_pkg::UOP_DST_BITS+vdla_pkg::UOP_SRC_BITS+:vdla_pkg::UOP_WGT_BITS]) + s1_wgt_off;
  wire s1_live = s1_valid && !loop_abort;
  always_comb begin
    idx_err = 1'b0;
    idx_err_code = vdla_pkg::E_NONE;
    idx_err_info = '0;
    if (s1_live) begin
      if (s1_wr && d1 >= vdla_pkg::ACC_DEPTH) begin
        idx_err = 1'b1;
        idx_err_code = vdla_pkg::E_DST_RANGE;
        idx_err_info = d1;
      end else if ((is_dw || (is_gemm && !gemm_reset)) && s1 >= vdla_pkg::INP_DEPTH) begin
        idx_err = 1'b1;
        idx_err_code = vdla_pkg::E_SRC_RANGE;
        idx_err_info = s1;
      end else if ((is_dw || (is_gemm && !gemm_reset)) && w1 >= vdla_pkg::WGT_DEPTH) begin
        idx_err = 1'b1;
        idx_err_code = vdla_pkg::E_WGT_RANGE;
        idx_err_info = w1;
      end else if (tensor_alu && s1 >= vdla_pkg::ACC_DEPTH) begin
        idx_err = 1'b1;
        idx_err_code = vdla_pkg::E_SRC_RANGE;
        idx_err_info = s1;
      end else if (bias_alu && s1 + 32'd1 >= vdla_pkg::ACC_DEPTH) begin
        idx_err = 1'b1;
        idx_err_code = vdla_pkg::E_SRC_RANGE;
        idx_err_info = s1 + 32'd1;
      end
    end
  end

  // ---------------- operand register tag (S1) ----------------
  // opr_tag: the src of the last tensor-operand op that left S1, i.e. the
  // entry the operand register will hold when the op now in S1 reaches S5.
  logic opr_tag_valid;
  logic [vdla_pkg::ACC_IDX_BITS-1:0] opr_tag;
  wire [vdla_pkg::ACC_IDX_BITS-1:0] s1_src_idx = s1[vdla_pkg::ACC_IDX_BITS-1:0];
  wire s1_opr_hit = opr_tag_valid && opr_tag == s1_src_idx;
  logic s2_valid;
  // The bias register (bias_clear) works like the operand register, for
  // ACC[src+1]: bias_tag is the entry it will hold. An op whose bias entry
  // differs first sends a bias fetch down the pipeline, a bubble that reads
  // ACC[src+1] in S3 and writes nothing, and waits in S1 meanwhile; like a src
  // read, the fetch leaves S1 only when no op is one stage ahead.
  logic bias_tag_valid;
  logic [vdla_pkg::ACC_IDX_BITS-1:0] bias_tag;
  wire [vdla_pkg::ACC_IDX_BITS-1:0] s1_bias_idx = s1_src_idx + 1'b1;
  wire need_bias = s1_live && bias_alu && !idx_err && !(bias_tag_valid && bias_tag == s1_bias_idx);
  wire bias_issue = need_bias && (DualRead || !s2_valid);
  // A src read in S3 must not meet the dst read of the op one stage ahead
  // (on the one read port; acc_dual_read reads src on the copy).
  assign s1_stall = need_bias || (!DualRead && s1_live && tensor_alu && !idx_err && !s1_opr_hit && s2_valid);
  wire s1_pass = s1_live && !idx_err && !s1_stall;
  wire load_acc_wr = wr_valid && !ld_uop && cstate == C_LOAD;
  always_ff @(posedge clk) begin
    if (rst) begin
      opr_tag_valid <= 1'b0;
    end else if (s1_pass && tensor_alu) begin
      opr_tag_valid <= 1'b1;
      opr_tag <= s1_src_idx;
    end else if (load_acc_wr && wr_addr[vdla_pkg::ACC_IDX_BITS-1:0] == opr_tag) begin
      opr_tag_valid <= 1'b0;
    end
    if (rst) begin
      bias_tag_valid <= 1'b0;
    end else if (bias_issue) begin
      bias_tag_valid <= 1'b1;
      bias_tag <= s1_bias_idx;
    end else if (load_acc_wr && wr_addr[vdla_pkg::ACC_IDX_BITS-1:0] == bias_tag) begin
      bias_tag_valid <= 1'b0;
    end
  end

  // ---------------- S2..S5 ----------------
  logic s3_valid, s4_valid, s5_valid;
  logic s2_wr, s3_wr, s4_wr, s5_wr, s2_first, s3_first;
  logic s2_fresh, s3_fresh, s4_fresh, s5_fresh;  // requant GEMM: the op starts from req_bias
  logic s2_opr_hit, s3_opr_hit;  // the op takes ACC[src] from the operand register
  logic s2_bias_fetch, s3_bias_fetch;  // a bias fetch (no op): reads ACC[src] into the bias register
  logic [vdla_pkg::ACC_IDX_BITS-1:0] s2_dst, s3_dst, s4_dst, s5_dst;
  logic [31:0] s2_src, s3_src;
  logic [31:0] s2_wgt;
  always_ff @(posedge clk) begin
    if (rst) begin
      s2_valid <= 1'b0;
      s3_valid <= 1'b0;
      s4_valid <= 1'b0;
      s5_valid <= 1'b0;
    end else begin
      s2_valid <= s1_pass || bias_issue;
      s3_valid <= s2_valid;
      s4_valid <= s3_valid;
      s5_valid <= s4_valid;
    end
    s2_opr_hit <= s1_opr_hit || bias_issue;
    s2_bias_fetch <= bias_issue;
    s3_bias_fetch <= s2_bias_fetch;
    s2_wr <= s1_wr && !bias_issue;
    s3_wr <= s2_wr;
    s4_wr <= s3_wr;
    s5_wr <= s4_wr;
    s2_first <= s1_first;
    s3_first <= s2_first;
    s2_fresh <= s1_fresh;
    s3_fresh <= s2_fresh;
    s4_fresh <= s3_fresh;
    s5_fresh <= s4_fresh;
    s3_opr_hit <= s2_opr_hit;
    s2_dst <= d1[vdla_pkg::ACC_IDX_BITS-1:0];
    s2_src <= bias_issue ? s1 + 32'd1 : s1;
    s2_wgt <= w1;
    s3_dst <= s2_dst;
    s3_src <= s2_src;
    s4_dst <= s3_dst;
    s5_dst <= s4_dst;
  end
  assign pipe_busy = s1_valid || s2_valid || s3_valid || s4_valid || s5_valid;

  wire gemm_reads = s2_valid && (is_dw || (is_gemm && !gemm_reset));
  assign inp_re = gemm_reads;
  assign inp_raddr = s2_src[vdla_pkg::INP_IDX_BITS-1:0];
  assign wgt_re = gemm_reads;
  assign wgt_raddr = s2_wgt[vdla_pkg::WGT_IDX_BITS-1:0];

  logic [ACC_W-1:0] gemm_sum;
  vdla_gemm gemm (
      .clk, .en_mul(s3_valid && (is_dw || (is_gemm && !gemm_reset))),
      .en_sum(s4_valid && (is_dw || (is_gemm && !gemm_reset))), .dw(is_dw), .first(s3_first),
      .lane_block(dw_lane_block), .inp(inp_rdata), .wgt(wgt_rdata), .sum(gemm_sum)
  );
  // The op in S5 writes ACC and OUT (all but DWGEMM's window fills).
  wire s5_write = s5_valid && s5_wr;

  // ---------------- ACC memory and forwarding ----------------
  logic [LANES-1:0] acc_we;
  logic [vdla_pkg::ACC_IDX_BITS-1:0] acc_waddr, acc_raddr;
  logic [ACC_W-1:0] acc_wdata, acc_rdata, result;
  logic acc_re;
  vdla_ram #(.WIDTH(ACC_W), .DEPTH(vdla_pkg::ACC_DEPTH), .LANE(32), .ULTRA(vdla_pkg::ACC_ULTRARAM != 0)) acc_mem (
      .clk, .we(acc_we), .waddr(acc_waddr), .wdata(acc_wdata), .re(acc_re), .raddr(acc_raddr), .rdata(acc_rdata)
  );
  wire src_read = s3_valid && tensor_alu && !s3_opr_hit;
  wire bias_read = s3_valid && s3_bias_fetch;
  // SETREQ's two reads (the pipeline is empty then)
  wire req_read = vdla_pkg::GEMM_REQUANT != 0 && (cstate == C_REQ_OPR || cstate == C_REQ_BIAS);
  wire [vdla_pkg::ACC_IDX_BITS-1:0] req_raddr =
      setreq_base[vdla_pkg::ACC_IDX_BITS-1:0] + vdla_pkg::ACC_IDX_BITS'(cstate == C_REQ_BIAS);
  wire src_port_read = src_read || bias_read;  // S3's read of ACC[src] or ACC[src+1]
  assign acc_re = (!DualRead && src_port_read) || (s4_valid && s4_wr) || req_read;
  assign acc_raddr = req_read ? req_raddr :
                     (!DualRead && src_port_read) ? s3_src[vdla_pkg::ACC_IDX_BITS-1:0] : s4_dst;
  // The data of S3's read: from the copy with acc_dual_read, else from the
  // one port.
  logic [ACC_W-1:0] src_rdata;
  if (DualRead) begin : g_acc_copy
    vdla_ram #(.WIDTH(ACC_W), .DEPTH(vdla_pkg::ACC_DEPTH), .LANE(32), .ULTRA(vdla_pkg::ACC_ULTRARAM != 0)) acc_src_mem (
        .clk, .we(acc_we), .waddr(acc_waddr), .wdata(acc_wdata), .re(src_port_read),
        .raddr(s3_src[vdla_pkg::ACC_IDX_BITS-1:0]), .rdata(src_rdata)
    );
  end else begin : g_one_port
    assign src_rdata = acc_rdata;
  end

  // The requantisation state (SETREQ): after reset REQ with zero operand,
  // bias and imm. ACC[sram_base] arrives in C_REQ_BIAS, ACC[sram_base+1] in
  // C_REQ_END.
  localparam int ReqOpW = vdla_pkg::SETREQ_ALU_OP_W;
  logic [ReqOpW-1:0] req_op;
  logic [31:0] req_imm;
  logic [ACC_W-1:0] req_operand, req_bias;
  always_ff @(posedge clk) begin
    if (vdla_pkg::GEMM_REQUANT != 0) begin
      if (rst) begin
        req_op <= ReqOpW'(vdla_pkg::ALU_REQ);
        req_imm <= '0;
        req_operand <= '0;
        req_bias <= '0;
      end else begin
        if (cstate == C_REQ_BIAS) req_operand <= acc_rdata;
        if (cstate == C_REQ_END) begin
          req_bias <= acc_rdata;
          req_op <= setreq_op;
          req_imm <= setreq_imm;
        end
      end
    end
  end

  logic last_wr_valid;
  logic [vdla_pkg::ACC_IDX_BITS-1:0] last_wr_addr;
  logic [ACC_W-1:0] last_wr_data;
  logic [ACC_W-1:0] src_operand;  // the operand register: ACC[opr_idx] as of the op in S5
  logic [vdla_pkg::ACC_IDX_BITS-1:0] opr_idx;
  logic [ACC_W-1:0] bias_operand;  // the bias register: ACC[bias_idx] as of the op in S5
  logic [vdla_pkg::ACC_IDX_BITS-1:0] bias_idx;
  logic [vdla_pkg::ACC_IDX_BITS-1:0] s4_src_addr;
  logic s4_src_pending, s4_bias_pending;
  // What the op in S5 writes to ACC: its result, or zero with bias_clear.
  wire [ACC_W-1:0] acc_result = bias_clear ? '0 : result;
  // acc_dual_read: S5 writes the entry that S4's src or bias read took (see
  // the header).
  wire s4_src_from_s5 = DualRead && s5_write && s5_dst == s4_src_addr;
  always_ff @(posedge clk) begin
    s4_src_pending <= src_read;
    s4_bias_pending <= bias_read;
    s4_src_addr <= s3_src[vdla_pkg::ACC_IDX_BITS-1:0];
    if (s4_src_pending) begin
      src_operand <= s4_src_from_s5 ? acc_result :
                     (last_wr_valid && last_wr_addr == s4_src_addr) ? last_wr_data : src_rdata;
      opr_idx <= s4_src_addr;
    end else if (s5_write && s5_dst == opr_idx) begin
      src_operand <= acc_result;  // the entry it holds is written (GEMM or ALU)
    end
    if (vdla_pkg::ALU_BIAS_CLEAR != 0) begin
      if (s4_bias_pending) begin
        bias_operand <= s4_src_from_s5 ? acc_result :
                        (last_wr_valid && last_wr_addr == s4_src_addr) ? last_wr_data : src_rdata;
        bias_idx <= s4_src_addr;
      end else if (s5_write && s5_dst == bias_idx) begin
        bias_operand <= acc_result;
      end
    end
    last_wr_valid <= s5_write;
    last_wr_addr <= s5_dst;
    if (s5_write) last_wr_data <= acc_result;
  end
  wire [ACC_W-1:0] dst_operand = (last_wr_valid && last_wr_addr == s5_dst) ? last_wr_data : acc_rdata;

  // One lane of the vector ALU: a = op(a, b) on int32, as docs/isa.md defines
  // it. Shift amounts are clamped to [-31, 31]; RSHR rounds half up.
  //
  // MUL and MULSHR share one signed 32x32 multiplier: MUL keeps the low 32
  // bits of a*b, MULSHR multiplies by m = b >>> 6 and shifts the 64-bit
  // product right by s = b[5:0] with rounding (|a*m| < 2^56). CLIP reads its
  // bounds as two signed bytes of b. REQ (extension fused_requant) is MULSHR
  // followed by CLIP with the bounds of the instruction's immediate `c`: the
  // clip comparators take the multiplier's result instead of `a`.
  //
  // One right shifter serves SHR and RSHR (their left shifts too), MULSHR
  // and REQ. Each op shifts by one less than its amount k >= 1, so that
  // rounding half up becomes an increment and a final halving,
  // (x + 2^(k-1)) >> k == ((x >> (k-1)) + 1) >> 1 (floor division twice),
  // and a plain SHR is the final halving alone. No rounding constant is built
  // and added at 64 bits, and of the shifted value only the 33 bits that the
  // 32-bit results come from are formed, instead of a shifter and a rounding
  // adder per op (docs/hardware.md, Resources, has what it saved).
  //
  // A function, not a module, so that S5 calls it only in the branch of the
  // result mux that selects it: synthesis builds the same combinational lanes
  // either way, but the Verilated model then evaluates the lanes (a 64-bit
  // multiply, shifters and comparators each) only in cycles whose result is
  // an ALU result, not in every GEMM cycle.
  localparam int OpW = vdla_pkg::ALU_ALU_OP_W;

  function automatic logic signed [31:0] alu_lane(input logic [OpW-1:0] op, input logic signed [31:0] a,
                                                  input logic signed [31:0] b, input logic signed [31:0] c);
    logic signed [31:0] s;
    logic [4:0] left, right;
    logic signed [31:0] factor, mul_a;
    logic signed [63:0] product, shr_in;
    logic [5:0] mulshr_shift, shr_amount;
    logic [32:0] shifted, shifted_inc;  // bits [32:0] of shr_in >>> shr_amount, and that plus 1
    logic signed [31:0] mulshr_y;
    logic mulshr_like, less;
    logic signed [31:0] clip_in, clip_bounds, clip_lo, clip_hi, clip_raised;
    logic req;
    logic freq, freq_negative;
    logic [31:0] magnitude, below_a;
    logic [4:0] msb, k_p;
    logic [2:0] k_a;
    logic [24:0] mant_a, mant_p, q_p, below_p;
    logic [23:0] q_a, q_prod;
    logic guard, sticky;
    logic signed [9:0] point;
    logic signed [41:0] freq_q;
    logic signed [42:0] freq_y;

    s = (b > 31) ? 32'sd31 : ((b < -31) ? -32'sd31 : b);
    left = 5'(-s);
    right = 5'(s);

    req = vdla_pkg::FUSED_REQUANT != 0 && op == OpW'(vdla_pkg::ALU_REQ);
    freq = vdla_pkg::FLOAT_REQUANT != 0 && op == OpW'(vdla_pkg::ALU_FREQ);

    // FREQ (extension float_requant): a's magnitude normalised to a 24-bit
    // mantissa (rounded half to even above 2^24), which the shared multiplier
    // takes times b's mantissa; the product, in [2^46, 2^48), is rounded to
    // 24 bits and then to the integer point that the exponents give. Each
    // rounding is a shift, a guard bit and a sticky OR of the bits below it,
    // at the narrowest width its range needs. (Computed only on a config with
    // the extension: the base hardware's lanes stay what they were; and only
    // for FREQ itself, whose result alone reads it: the other ops' value is
    // the same, and a Verilated model does not evaluate it for them in every
    // requantising GEMM cycle.)
    mant_a = 25'd0;
    msb = 5'd0;
    magnitude = 32'd0;
    freq_negative = 1'b0;
    if (vdla_pkg::FLOAT_REQUANT != 0 && freq) begin
      freq_negative = a[31] ^ b[31];
      magnitude = a[31] ? 32'(-a) : 32'(a);  // -(-2^31) reads as 2^31 unsigned
      for (int i = 1; i < 32; i++)
        if (magnitude[i]) msb = 5'(i);
      if (msb <= 5'd23) begin
        mant_a = 25'(magnitude << (5'd23 - msb));
      end else begin
        k_a = 3'(msb - 5'd24);  // bits dropped - 1, in [0, 7]
        q_a = 24'(magnitude >> (6'(k_a) + 6'd1));
        guard = magnitude[5'(k_a)];
        below_a = magnitude & ((32'd1 << k_a) - 32'd1);
        mant_a = 25'(q_a) + 25'(guard && (below_a != 32'd0 || q_a[0]));
      end
    end
    // The multiplier's operands are muxed at 32 bits (mant_a <= 2^24), so
    // that synthesis still sees one signed 32x32 product.
    factor = freq ? $signed(32'({1'b1, b[22:0]})) : ((op == OpW'(vdla_pkg::ALU_MULSHR) || req) ? (b >>> 6) : b);
    mul_a = freq ? $signed(32'(mant_a)) : a;  // all signed: MULSHR's b >>> 6 stays arithmetic
    product = 64'(mul_a) * 64'(factor);
    mulshr_shift = b[5:0];
    // The shared right shifter (see above): the product for MULSHR and REQ,
    // a sign-extended for SHR and RSHR, each by its amount minus one (the
    // amount-0 cases take other paths below). SHR and RSHR by s < 0 shift
    // left by L = -s, which is the same shifter on a * 2^32 by 32 - L:
    // (a * 2^32) >>> (32 - L) == a * 2^L exactly (|a| <= 2^31, L <= 31), and
    // its low 32 bits are the result; by one less, the amount is 31 - L.
    mulshr_like = op == OpW'(vdla_pkg::ALU_MULSHR) || req;
    shr_in = mulshr_like ? product : ((s < 0) ? {a, 32'd0} : {{32{a[31]}}, a});
    shr_amount = mulshr_like ? (mulshr_shift - 6'd1) : ((s < 0) ? 6'(5'd31 - left) : 6'(right - 5'd1));
    shifted = 33'(shr_in >>> shr_amount);
    shifted_inc = shifted + 33'd1;
    mulshr_y = (mulshr_shift == 6'd0) ? product[31:0] : shifted_inc[32:1];

    freq_y = 43'sd0;
    if (vdla_pkg::FLOAT_REQUANT != 0 && freq) begin
      // the product to 24 bits: 24 bits dropped when bit 47 is set, else 23
      q_prod = product[47] ? product[47:24] : product[46:23];
      guard = product[47] ? product[23] : product[22];
      sticky = product[47] ? (product[22:0] != 23'd0) : (product[21:0] != 22'd0);
      mant_p = 25'(q_prod) + 25'(guard && (sticky || q_prod[0]));  // in [2^23, 2^24]
      point = (product[47] ? 10'sd24 : 10'sd23) + 10'(msb) - 10'sd23 + 10'(b[30:23]) - 10'sd150;
      freq_q = 42'sd0;
      if (magnitude == 32'd0) begin
        freq_q = 42'sd0;
      end else if (point >= 10'sd0) begin
        // |result| >= 2^23: saturated whatever an immediate of the package's
        // width adds, unless the immediate is that wide
        if (vdla_pkg::ALU_IMM_W <= 22) freq_q = 42'sd1 <<< 40;
        else freq_q = (point > 10'sd16) ? (42'sd1 <<< 40) : 42'(64'(mant_p) << point);
      end else if (point >= -10'sd25) begin
        k_p = 5'(-point - 10'sd1);  // bits dropped - 1, in [0, 24]
        q_p = mant_p >> (6'(k_p) + 6'd1);
        guard = mant_p[k_p];
        below_p = mant_p & ((25'd1 << k_p) - 25'd1);
        freq_q = 42'(q_p) + 42'(guard && (below_p != 25'd0 || q_p[0]));
      end
      freq_y = (freq_negative ? -(43'(freq_q)) : 43'(freq_q)) + 43'(c);  // yosys reads -43'(x) as a cast to size -43
    end

    clip_in = req ? mulshr_y : a;
    clip_bounds = req ? c : b;
    clip_lo = 32'(signed'(clip_bounds[7:0]));
    clip_hi = 32'(signed'(clip_bounds[15:8]));
    clip_raised = (clip_in < clip_lo) ? clip_lo : clip_in;
    less = a < b;

    case (op)
      // MIN and MAX share one comparator (with a == b both give a)
      OpW'(vdla_pkg::ALU_MIN): alu_lane = less ? a : b;
      OpW'(vdla_pkg::ALU_MAX): alu_lane = less ? b : a;
      OpW'(vdla_pkg::ALU_ADD): alu_lane = a + b;
      OpW'(vdla_pkg::ALU_MUL): alu_lane = product[31:0];
      OpW'(vdla_pkg::ALU_SHR): alu_lane = (s == 0) ? a : shifted[32:1];
      OpW'(vdla_pkg::ALU_RSHR): alu_lane = (s == 0) ? a : ((s < 0) ? shifted[32:1] : shifted_inc[32:1]);
      OpW'(vdla_pkg::ALU_CLIP): alu_lane = (clip_raised > clip_hi) ? clip_hi : clip_raised;
      // without the extension op 9 is refused before it runs; MOV's value
      // keeps the base hardware's lanes exactly
      OpW'(vdla_pkg::ALU_REQ): alu_lane = req ? ((clip_raised > clip_hi) ? clip_hi : clip_raised) : b;
      OpW'(vdla_pkg::ALU_MULSHR): alu_lane = mulshr_y;
      OpW'(vdla_pkg::ALU_FREQ):
      alu_lane = !freq ? b : ((freq_y < -43'sd128) ? -32'sd128 : ((freq_y > 43'sd127) ? 32'sd127 : 32'(freq_y)));
      default: alu_lane = b;  // MOV
    endcase
  endfunction

  // S5: accumulate or ALU. The GEMM value is assigned first and overridden,
  // rather than written as if/else: Verilator turns an if/else that assigns
  // the same variable in both branches into one conditional expression,
  // which evaluates both sides (all the ALU lanes) in every cycle.
  //
  // With gemm_requant a requantising GEMM runs its sum through the same lane
  // call, its inputs muxed: op req_op, a the sum, b req_operand, c req_imm;
  // OUT takes the lane's low byte and ACC the sum, and a plain GEMM still
  // never evaluates the lane. One adder per lane then serves both the
  // accumulate (ACC[dst] or, fresh, req_bias, plus the GEMM sum) and
  // bias_clear (ACC[dst] + the bias register), so that the lane's first
  // operand is that adder's output for the ALU and the GEMM alike, with no
  // multiplexer in front of it. Without the extension the lanes are the base
  // design's (g_base).
  wire s5_from_bias = gemm_rq && s5_fresh;
`ifdef VERILATOR
`ifndef VDLA_GEMM_SYNTHESIS_FORM
  // The fast models' REQ of a requantising GEMM (simulator/cycle/model/fast_model_dpi.cpp).
  import "DPI-C" pure function int vdla_req_lane(input int a, input int b, input int c);
  wire fast_req = gemm_rq && req_op == ReqOpW'(vdla_pkg::ALU_REQ);
`define VDLA_FAST_REQ_LANES
`endif
`endif
  for (genvar e = 0; e < LANES; e++) begin : g_lane
    logic [31:0] lane;  // OUT keeps its low byte
    if (vdla_pkg::GEMM_REQUANT == 0) begin : g_base
      always_comb begin
        result[e*32+:32] = gemm_reset ? 32'd0 : dst_operand[e*32+:32] + gemm_sum[e*32+:32];
        if (!is_mm)
          result[e*32+:32] = alu_lane(
              alu_op, bias_alu ? dst_operand[e*32+:32] + bias_operand[e*32+:32] : dst_operand[e*32+:32],
              use_imm ? imm : src_operand[e*32+:32], imm);
      end
      assign lane = result[e*32+:32];
    end else begin : g_requant
      logic [31:0] total;  // the shared adder
      always_comb begin
        total = (s5_from_bias ? req_bias[e*32+:32] : dst_operand[e*32+:32]) +
            (is_mm ? gemm_sum[e*32+:32] : (bias_alu ? bias_operand[e*32+:32] : 32'd0));
        lane = gemm_reset ? 32'd0 : total;
`ifdef VDLA_FAST_REQ_LANES
        if (fast_req)
          lane = vdla_req_lane(total, req_operand[e*32+:32], req_imm);
        else
`endif
        if (!is_mm || gemm_rq)
          lane = alu_lane(gemm_rq ? req_op : alu_op, total,
                          gemm_rq ? req_operand[e*32+:32] : (use_imm ? imm : src_operand[e*32+:32]),
                          gemm_rq ? req_imm : imm);
        result[e*32+:32] = gemm_reset ? 32'd0 : total;  // ACC: the GEMM's sum or the ALU's result
        if (!is_mm) result[e*32+:32] = lane;
      end
    end
    assign out_wdata[e*8+:8] = lane[7:0];  // OUT keeps the low byte (truncation)
  end

  // ACC write port: the pipeline, or LOAD ACC / ACC8 beats.
  logic [LANES-1:0] load_lanes;
  logic [ACC_W-1:0] load_data;
  always_comb begin
    if (wr_zero) begin
      load_lanes = '1;
      load_data = '0;
    end else if (ld_acc8) begin
      // ACC8: each int8 of the beat becomes a sign-extended int32 lane.
      load_lanes = LANES'(((LANES + 1)'(1) << (ACC8_BEAT / 8)) - (LANES + 1)'(1)) << (32'(wr_beat) * (ACC8_BEAT / 8));
      for (int j = 0; j < LANES; j++) load_data[j*32+:32] = 32'($signed(wr_data[(j%(ACC8_BEAT/8))*8+:8]));
    end else begin
      load_lanes = LANES'(((LANES + 1)'(1) << (ACC_BEAT / 32)) - (LANES + 1)'(1)) << (32'(wr_beat) * (ACC_BEAT / 32));
      for (int j = 0; j < LANES; j++) load_data[j*32+:32] = wr_data[(j%(ACC_BEAT/32))*32+:32];
    end
  end
  assign acc_we = s5_write ? '1 : (load_acc_wr ? load_lanes : '0);
  assign acc_waddr = s5_write ? s5_dst : wr_addr[vdla_pkg::ACC_IDX_BITS-1:0];
  assign acc_wdata = s5_write ? acc_result : load_data;

  assign out_we = s5_write;
  assign out_waddr = s5_dst;
  assign gemm_fire = s5_valid && is_mm;  // every DWGEMM iteration takes the core for a cycle
  assign alu_fire = s5_valid && is_alu && s5_wr;  // not a bias fetch
endmodule

`ifdef VDLA_FAST_REQ_LANES
`undef VDLA_FAST_REQ_LANES
`endif
