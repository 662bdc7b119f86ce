// Static legality of one instruction, checked by fetch before dispatch: the
// decode errors of IsaLayout::decode (unknown opcode, memory or ALU op -- a
// SETREQ op other than REQ or FREQ too --, stray bits, imm without use_imm,
// GEMM requant with reset, reported as E_FLAGS) and the per-instruction rules of
// checkProgramStructure (flags naming a missing neighbour, padding on STORE or
// LOAD UOP). Also says which module executes the instruction.
module vdla_insn_check (
    input  logic [127:0] insn,
    output logic [1:0]   module_id,  // 0 load, 1 compute, 2 store
    output logic         is_finish,
    output logic [7:0]   error       // vdla_pkg::E_*, E_NONE when legal
);
  localparam int LOAD_USED = vdla_pkg::LOAD_X_PAD_RIGHT_LSB + vdla_pkg::LOAD_X_PAD_RIGHT_W;
  localparam int STORE_USED = vdla_pkg::STORE_X_PAD_RIGHT_LSB + vdla_pkg::STORE_X_PAD_RIGHT_W;
  // requant (extension gemm_requant) is the GEMM's last field.
  localparam int GEMM_USED = vdla_pkg::GEMM_REQUANT != 0 ? vdla_pkg::GEMM_REQUANT_BIT + 1 :
      vdla_pkg::GEMM_WGT_FACTOR_IN_LSB + vdla_pkg::GEMM_WGT_FACTOR_IN_W;
  localparam int SETREQ_USED = vdla_pkg::SETREQ_IMM_LSB + vdla_pkg::SETREQ_IMM_W;
  // bias_clear (extension alu_bias_clear) is the ALU's last field.
  localparam int ALU_USED = vdla_pkg::ALU_BIAS_CLEAR != 0 ? vdla_pkg::ALU_BIAS_CLEAR_BIT + 1 :
      vdla_pkg::ALU_IMM_LSB + vdla_pkg::ALU_IMM_W;
  // requant (extension gemm_requant) is DWGEMM's last field, else lane_block
  // (block_in > block_out), else stride.
  localparam int DWGEMM_USED = vdla_pkg::GEMM_REQUANT != 0 ? vdla_pkg::DWGEMM_REQUANT_BIT + 1 :
      vdla_pkg::DWGEMM_LANE_BLOCK_BITS != 0 ? vdla_pkg::DWGEMM_LANE_BLOCK_BIT + vdla_pkg::DWGEMM_LANE_BLOCK_BITS :
      vdla_pkg::DWGEMM_STRIDE_LSB + vdla_pkg::DWGEMM_STRIDE_W;
  localparam int FINISH_USED = vdla_pkg::FINISH_PUSH_NEXT_LSB + vdla_pkg::FINISH_PUSH_NEXT_W;

  // Bits at or above `used` must be zero.
  function automatic logic stray(input logic [127:0] bits, input int used);
    stray = used < 128 && (bits >> used) != '0;
  endfunction

  wire [2:0] opcode = insn[vdla_pkg::LOAD_OPCODE_LSB+:3];
  wire [2:0] memory = insn[vdla_pkg::LOAD_MEMORY_LSB+:3];
  wire [vdla_pkg::ALU_ALU_OP_W-1:0] alu_op = insn[vdla_pkg::ALU_ALU_OP_LSB+:vdla_pkg::ALU_ALU_OP_W];
  wire use_imm = insn[vdla_pkg::ALU_USE_IMM_LSB];
  wire [vdla_pkg::SETREQ_ALU_OP_W-1:0] setreq_op = insn[vdla_pkg::SETREQ_ALU_OP_LSB+:vdla_pkg::SETREQ_ALU_OP_W];
  wire gemm_reset = insn[vdla_pkg::GEMM_RESET_LSB];
  wire gemm_requant = vdla_pkg::GEMM_REQUANT != 0 && insn[vdla_pkg::GEMM_REQUANT_BIT];
  wire imm_nonzero = insn[vdla_pkg::ALU_IMM_LSB+:vdla_pkg::ALU_IMM_W] != '0;
  wire pop_prev = insn[vdla_pkg::LOAD_POP_PREV_LSB];
  wire pop_next = insn[vdla_pkg::LOAD_POP_NEXT_LSB];
  wire push_prev = insn[vdla_pkg::LOAD_PUSH_PREV_LSB];
  wire push_next = insn[vdla_pkg::LOAD_PUSH_NEXT_LSB];
  wire padded = insn[vdla_pkg::LOAD_Y_PAD_TOP_LSB+:vdla_pkg::LOAD_Y_PAD_TOP_W] != '0 ||
      insn[vdla_pkg::LOAD_Y_PAD_BOTTOM_LSB+:vdla_pkg::LOAD_Y_PAD_BOTTOM_W] != '0 ||
      insn[vdla_pkg::LOAD_X_PAD_LEFT_LSB+:vdla_pkg::LOAD_X_PAD_LEFT_W] != '0 ||
      insn[vdla_pkg::LOAD_X_PAD_RIGHT_LSB+:vdla_pkg::LOAD_X_PAD_RIGHT_W] != '0;

  wire [vdla_pkg::DWGEMM_TAPS_W-1:0] dw_taps = insn[vdla_pkg::DWGEMM_TAPS_LSB+:vdla_pkg::DWGEMM_TAPS_W];
  wire [vdla_pkg::DWGEMM_STRIDE_W-1:0] dw_stride = insn[vdla_pkg::DWGEMM_STRIDE_LSB+:vdla_pkg::DWGEMM_STRIDE_W];

  wire is_load = opcode == 3'(vdla_pkg::OPCODE_LOAD);
  wire is_store = opcode == 3'(vdla_pkg::OPCODE_STORE);
  wire load_mem_ok = memory == 3'(vdla_pkg::MEM_UOP) || memory == 3'(vdla_pkg::MEM_WGT) ||
      memory == 3'(vdla_pkg::MEM_INP) || memory == 3'(vdla_pkg::MEM_ACC) || memory == 3'(vdla_pkg::MEM_ACC8);

  assign is_finish = opcode == 3'(vdla_pkg::OPCODE_FINISH);

  always_comb begin
    if (is_store) module_id = 2'd2;
    else if (is_load && (memory == 3'(vdla_pkg::MEM_WGT) || memory == 3'(vdla_pkg::MEM_INP))) module_id = 2'd0;
    else module_id = 2'd1;
  end

  always_comb begin
    error = vdla_pkg::E_NONE;
    case (opcode)
      3'(vdla_pkg::OPCODE_LOAD): begin
        if (!load_mem_ok) error = vdla_pkg::E_MEMORY;
        else if (stray(insn, LOAD_USED)) error = vdla_pkg::E_STRAY_BITS;
        else if (module_id == 2'd0 && (pop_prev || push_prev)) error = vdla_pkg::E_FLAGS;
        else if (memory == 3'(vdla_pkg::MEM_UOP) && padded) error = vdla_pkg::E_PAD;
      end
      3'(vdla_pkg::OPCODE_STORE): begin
        if (memory != 3'(vdla_pkg::MEM_OUT) && !(vdla_pkg::INP_WRITEBACK != 0 && memory == 3'(vdla_pkg::MEM_INP)))
          error = vdla_pkg::E_MEMORY;
        else if (stray(insn, STORE_USED)) error = vdla_pkg::E_STRAY_BITS;
        else if (pop_next || push_next) error = vdla_pkg::E_FLAGS;
        else if (padded) error = vdla_pkg::E_PAD;
      end
      3'(vdla_pkg::OPCODE_GEMM): begin
        if (stray(insn, GEMM_USED)) error = vdla_pkg::E_STRAY_BITS;
        else if (gemm_requant && gemm_reset) error = vdla_pkg::E_FLAGS;  // requant excludes reset
      end
      3'(vdla_pkg::OPCODE_ALU): begin
        if (alu_op > vdla_pkg::ALU_ALU_OP_W'(vdla_pkg::ALU_OP_LAST)) error = vdla_pkg::E_ALU_OP;
        else if (stray(insn, ALU_USED)) error = vdla_pkg::E_STRAY_BITS;
        // REQ's imm holds its clip bounds and FREQ's its zero point with either operand
        else if (!use_imm && imm_nonzero && alu_op != vdla_pkg::ALU_ALU_OP_W'(vdla_pkg::ALU_REQ) &&
                 alu_op != vdla_pkg::ALU_ALU_OP_W'(vdla_pkg::ALU_FREQ))
          error = vdla_pkg::E_IMM;
      end
      3'(vdla_pkg::OPCODE_DWGEMM): begin  // only with the depthwise extension
        if (vdla_pkg::DEPTHWISE_TAPS == 0) error = vdla_pkg::E_OPCODE;
        else if (stray(insn, DWGEMM_USED)) error = vdla_pkg::E_STRAY_BITS;
        else if (dw_taps == '0 || 32'(dw_taps) > vdla_pkg::DEPTHWISE_TAPS || dw_stride == '0)
          error = vdla_pkg::E_DW_SHAPE;
      end
      3'(vdla_pkg::OPCODE_SETREQ): begin  // only with the gemm_requant extension
        if (vdla_pkg::GEMM_REQUANT == 0) error = vdla_pkg::E_OPCODE;
        // REQ or FREQ (the latter only where the config has it)
        else if ((setreq_op != vdla_pkg::SETREQ_ALU_OP_W'(vdla_pkg::ALU_REQ) &&
                  setreq_op != vdla_pkg::SETREQ_ALU_OP_W'(vdla_pkg::ALU_FREQ)) ||
                 setreq_op > vdla_pkg::SETREQ_ALU_OP_W'(vdla_pkg::ALU_OP_LAST))
          error = vdla_pkg::E_ALU_OP;
        else if (stray(insn, SETREQ_USED)) error = vdla_pkg::E_STRAY_BITS;
      end
      3'(vdla_pkg::OPCODE_FINISH): begin
        if (stray(insn, FINISH_USED)) error = vdla_pkg::E_STRAY_BITS;
      end
      default: error = vdla_pkg::E_OPCODE;
    endcase
  end
endmodule
