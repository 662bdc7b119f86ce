// The front of the load, compute and store modules: takes the head of the
// command queue, waits until every token it pops is present and every queue it
// pushes to has room (the ISA rule, checked all at once as in fsim), pops the
// tokens, lets the module's executor run the instruction, then pushes the
// tokens and frees the command-queue slot.
module vdla_sequencer (
    input  logic         clk,
    input  logic         rst,
    input  logic         halt,       // stop taking new instructions (error)
    input  logic         q_empty,
    input  logic [159:0] q_head,     // {index, instruction}
    output logic         q_pop,
    // Tokens: availability of the queues this module pops, room in those it pushes.
    input  logic         prev_avail,
    input  logic         next_avail,
    input  logic         prev_room,
    input  logic         next_room,
    output logic         pop_prev,
    output logic         pop_next,
    output logic         push_prev,
    output logic         push_next,
    // Executor handshake: `start` for one cycle, then wait for `done`.
    output logic         start,
    output logic [127:0] insn,
    output logic [31:0]  index,
    input  logic         done,
    output logic [3:0]   state
);
  localparam logic [1:0] IDLE = 2'd0, CHECK = 2'd1, EXEC = 2'd2;
  logic [1:0] phase;

  // The flags sit at the same bits in every opcode (the common fields).
  wire f_pop_prev = q_head[vdla_pkg::LOAD_POP_PREV_LSB];
  wire f_pop_next = q_head[vdla_pkg::LOAD_POP_NEXT_LSB];
  wire f_push_prev = q_head[vdla_pkg::LOAD_PUSH_PREV_LSB];
  wire f_push_next = q_head[vdla_pkg::LOAD_PUSH_NEXT_LSB];
  wire tokens_missing = (f_pop_prev && !prev_avail) || (f_pop_next && !next_avail);
  wire room_missing = (f_push_prev && !prev_room) || (f_push_next && !next_room);
  wire go = phase == CHECK && !halt && !tokens_missing && !room_missing;

  assign start = go;
  assign pop_prev = go && f_pop_prev;
  assign pop_next = go && f_pop_next;
  wire finishing = phase == EXEC && done;
  assign push_prev = finishing && insn[vdla_pkg::LOAD_PUSH_PREV_LSB];
  assign push_next = finishing && insn[vdla_pkg::LOAD_PUSH_NEXT_LSB];
  assign q_pop = finishing;

  always_ff @(posedge clk) begin
    if (rst) begin
      phase <= IDLE;
    end else begin
      case (phase)
        IDLE: if (!q_empty && !halt) phase <= CHECK;
        CHECK:
        if (go) begin
          phase <= EXEC;
          insn  <= q_head[127:0];
          index <= q_head[159:128];
        end
        EXEC: if (done) phase <= IDLE;
        default: phase <= IDLE;
      endcase
      if (phase == CHECK && !go) index <= q_head[159:128];  // report where it waits
    end
  end

  always_comb begin
    case (phase)
      IDLE: state = q_empty ? vdla_pkg::S_IDLE : vdla_pkg::S_DECODE;
      CHECK: state = tokens_missing ? vdla_pkg::S_WAIT_TOKEN : (room_missing ? vdla_pkg::S_WAIT_ROOM : vdla_pkg::S_DECODE);
      default: state = vdla_pkg::S_BUSY;
    endcase
  end
  // Run-time checks (simulation only: synthesis defines SYNTHESIS, and the fast
  // cycle model defines VDLA_NO_ASSERTIONS). See docs/hardware.md, "Assertions".
`ifndef SYNTHESIS
`ifndef VDLA_NO_ASSERTIONS
  always @(posedge clk) begin
    if (!rst) begin
      assert (phase == IDLE || phase == CHECK || phase == EXEC) else $error("vdla_sequencer: illegal phase %0d", phase);
      assert (!(q_pop && q_empty)) else $error("vdla_sequencer: completes an instruction with its queue empty");
    end
  end
`endif
`endif
endmodule
