// Status encodings shared by the RTL modules and read by the host through the
// control registers (docs/hardware.md). The C++ side mirrors them in
// simulator/cycle/src/rtl_status.h; tests/simulator/cycle checks the two agree.
package vdla_status_pkg;
  // Error codes (ERROR_CODE register).
  localparam logic [7:0] E_NONE            = 8'd0;
  localparam logic [7:0] E_OPCODE          = 8'd1;   // unknown opcode
  localparam logic [7:0] E_MEMORY          = 8'd2;   // memory type not legal for LOAD/STORE
  localparam logic [7:0] E_ALU_OP          = 8'd3;   // unknown ALU op
  localparam logic [7:0] E_STRAY_BITS      = 8'd4;   // bits set outside the opcode's fields
  localparam logic [7:0] E_IMM             = 8'd5;   // ALU imm != 0 without use_imm
  localparam logic [7:0] E_FLAGS           = 8'd6;   // pop/push naming a missing neighbour
  localparam logic [7:0] E_PAD             = 8'd7;   // padding on STORE or LOAD UOP
  localparam logic [7:0] E_FINISH_NOT_LAST = 8'd8;   // FINISH before the last instruction
  localparam logic [7:0] E_NO_FINISH       = 8'd9;   // last instruction is not FINISH
  localparam logic [7:0] E_EMPTY           = 8'd10;  // instruction count 0
  localparam logic [7:0] E_SRAM_RANGE      = 8'd11;  // LOAD/STORE block past the memory (info: end index)
  localparam logic [7:0] E_UOP_RANGE       = 8'd12;  // uop_begin > uop_end or uop_end > depth (info: uop_end)
  localparam logic [7:0] E_DST_RANGE       = 8'd13;  // loop nest dst index past ACC (info: index)
  localparam logic [7:0] E_SRC_RANGE       = 8'd14;  // loop nest src index past INP/ACC (info: index)
  localparam logic [7:0] E_WGT_RANGE       = 8'd15;  // loop nest wgt index past WGT (info: index)
  localparam logic [7:0] E_AXI_READ        = 8'd16;  // read response error (info: byte address)
  localparam logic [7:0] E_AXI_WRITE       = 8'd17;  // write response error (info: byte address)
  localparam logic [7:0] E_ADDR_OVERFLOW   = 8'd18;  // byte address does not fit 32 bits (info: entry index)
  localparam logic [7:0] E_TOKENS_LEFT     = 8'd19;  // tokens left at the end (info: the 4 counts)

  // Sequencer states (MODULE_STATE register, 4 bits per module).
  localparam logic [3:0] S_IDLE       = 4'd0;  // command queue empty
  localparam logic [3:0] S_WAIT_TOKEN = 4'd1;  // head waits for a token to pop
  localparam logic [3:0] S_WAIT_ROOM  = 4'd2;  // head waits for room in a queue it pushes to
  localparam logic [3:0] S_BUSY       = 4'd3;  // executing
  localparam logic [3:0] S_DECODE     = 4'd4;  // looking at the head
  // Fetch only:
  localparam logic [3:0] S_FETCH_WAIT_DRAM  = 4'd5;  // instruction buffer empty, data outstanding
  localparam logic [3:0] S_FETCH_WAIT_QUEUE = 4'd6;  // head blocked by a full command queue
  localparam logic [3:0] S_FETCH_DONE       = 4'd7;  // every instruction dispatched
endpackage
