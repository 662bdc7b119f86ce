#pragma once
// The accelerator's host interface in one table: the AXI-Lite registers, the
// error codes, the module states and the performance counters. Every other
// description is generated from these lists:
//   - the C++ constants and names of vdla/hw/registers.h (drivers, the cycle
//     harness, the HLS C++, which includes it for synthesis too);
//   - the localparams of the RTL package vdla_pkg.sv (hw::generateSvPackage);
//   - the tables of docs/hardware.md (vdla_hwgen --interface-doc; a test
//     compares them with the document).
// Changing an address or adding a code is one edit here. Plain preprocessor
// lists (X-macros) so that C++14 HLS tools read it as well.

// X(Name, SV_NAME, byte offset, access, meaning)
#define VDLA_HW_REGISTERS(X)                                                                                       \
  X(Ctrl, CTRL, 0x000, "W: bit0 START. R: bit0 RUNNING, bit1 DONE, bit2 ERROR",                                    \
    "START is ignored while running; a start clears DONE/ERROR and the counters")                                  \
  X(InsnAddr, INSN_ADDR, 0x004, "RW", "byte address of the instruction stream (16-byte aligned)")                  \
  X(InsnAddrHi, INSN_ADDR_HI, 0x008, "RW", "upper 32 bits; must be 0 (DRAM is below 4 GiB)")                       \
  X(InsnCount, INSN_COUNT, 0x00c, "RW", "number of instructions")                                                  \
  X(HashLo, HASH_LO, 0x010, "R", "configuration hash (`vdla_pkg::CONFIG_HASH`), low 32 bits")                      \
  X(HashHi, HASH_HI, 0x014, "R", "configuration hash, high 32 bits")                                               \
  X(ErrorCode, ERROR_CODE, 0x018, "R", "[7:0] error code, [9:8] module: 0 fetch, 1 load, 2 compute, 3 store")      \
  X(ErrorIndex, ERROR_INDEX, 0x01c, "R", "instruction index of the error")                                         \
  X(ErrorInfo, ERROR_INFO, 0x020, "R", "detail of the error (see the error codes)")                                \
  X(ModuleState, MODULE_STATE, 0x024, "R", "4 bits per module (a state below): fetch [3:0], load, compute, store") \
  X(FetchIndex, FETCH_INDEX, 0x028, "R", "next instruction fetch dispatches")                                      \
  X(LoadIndex, LOAD_INDEX, 0x02c, "R", "instruction at the head of load")                                          \
  X(ComputeIndex, COMPUTE_INDEX, 0x030, "R", "instruction at the head of compute")                                 \
  X(StoreIndex, STORE_INDEX, 0x034, "R", "instruction at the head of store")                                       \
  X(Tokens, TOKENS, 0x038, "R", "token counts, one byte each: l->c, c->l, c->s, s->c")                             \
  X(Queues, QUEUES, 0x03c, "R", "[2:0] command queue full (load, compute, store), [6:4] empty")                    \
  X(ClockKhz, CLOCK_KHZ, 0x040, "R", "target clock in kHz")                                                        \
  X(Counters, COUNTERS, 0x100, "R",                                                                                \
    "counter i (below) at 0x100 + 8*i (low word) and +4 (high word): 64 bits, reset by START, counting while "     \
    "running; read when idle")

// What a read of an offset that holds no register returns.
#define VDLA_HW_UNMAPPED_READ 0xdeadbeefu

// X(Name, SV_NAME, bit, meaning): the bits of CTRL.
#define VDLA_HW_CTRL_BITS(X)                      \
  X(Start, START, 0, "write: start the program")  \
  X(Running, RUNNING, 0, "read: a program runs")  \
  X(Done, DONE, 1, "read: the last run finished") \
  X(Error, ERROR, 2, "read: the last run stopped with an error")

// X(Name, SV_NAME, code, meaning and what ERROR_INFO holds). Code 0 is "none".
#define VDLA_HW_ERRORS(X)                                                                                        \
  X(Opcode, OPCODE, 1, "unknown opcode")                                                                         \
  X(Memory, MEMORY, 2, "memory not legal for LOAD/STORE")                                                        \
  X(AluOp, ALU_OP, 3, "unknown ALU op (REQ, FREQ on a config without their extension)")                          \
  X(StrayBits, STRAY_BITS, 4, "bits set outside the opcode's fields")                                            \
  X(Imm, IMM, 5, "ALU imm != 0 without use_imm (except REQ and FREQ, whose imm is an operand)")                  \
  X(Flags, FLAGS, 6, "a missing neighbour's pop/push flag; GEMM requant with reset")                             \
  X(Pad, PAD, 7, "padding on STORE or LOAD UOP")                                                                 \
  X(FinishNotLast, FINISH_NOT_LAST, 8, "FINISH before the last instruction")                                     \
  X(NoFinish, NO_FINISH, 9, "last instruction is not FINISH")                                                    \
  X(Empty, EMPTY, 10, "instruction count 0")                                                                     \
  X(SramRange, SRAM_RANGE, 11, "LOAD/STORE SRAM block past the memory (info: end index)")                        \
  X(UopRange, UOP_RANGE, 12, "uop_begin > uop_end or uop_end > UOP depth (info: uop_end)")                       \
  X(DstRange, DST_RANGE, 13, "loop nest dst index past ACC (info: the index)")                                   \
  X(SrcRange, SRC_RANGE, 14, "loop nest src index past INP/ACC (info: the index)")                               \
  X(WgtRange, WGT_RANGE, 15, "loop nest wgt index past WGT (info: the index)")                                   \
  X(AxiRead, AXI_READ, 16, "AXI read response error (info: byte address of the instruction or entry read)")      \
  X(AxiWrite, AXI_WRITE, 17, "AXI write response error (info: byte address of the row written)")                 \
  X(AddrOverflow, ADDR_OVERFLOW, 18, "row address beyond the 32-bit AXI space (info: DRAM entry)")               \
  X(TokensLeft, TOKENS_LEFT, 19,                                                                                 \
    "tokens left at the end (module: compute, whose FINISH ends the run; info: the four counts, one byte each)") \
  X(DwShape, DW_SHAPE, 20, "DWGEMM taps outside [1, depthwise_taps] or stride 0")

// X(Name, SV_NAME, index, label, producer, consumer): the dependency-token
// queues between neighbouring modules, in the byte order of TOKENS (and of
// the fourth error's info). A module pushes to the queue it produces into and
// pops the one it consumes from; "prev"/"next" in an instruction's flags are
// the neighbour before and after it in load, compute, store.
#define VDLA_HW_TOKEN_QUEUES(X)                                            \
  X(LoadToCompute, LOAD_TO_COMPUTE, 0, "load->compute", Load, Compute)     \
  X(ComputeToLoad, COMPUTE_TO_LOAD, 1, "compute->load", Compute, Load)     \
  X(ComputeToStore, COMPUTE_TO_STORE, 2, "compute->store", Compute, Store) \
  X(StoreToCompute, STORE_TO_COMPUTE, 3, "store->compute", Store, Compute)

// X(Name, SV_NAME, value, short label, meaning). MODULE_STATE holds one per module.
#define VDLA_HW_STATES(X)                                                                                       \
  X(Idle, IDLE, 0, "idle", "idle (command queue empty)")                                                        \
  X(WaitToken, WAIT_TOKEN, 1, "token", "waits for a token to pop")                                              \
  X(WaitRoom, WAIT_ROOM, 2, "queue room", "waits for room in a queue it pushes to")                             \
  X(Busy, BUSY, 3, "busy", "busy")                                                                              \
  X(Decode, DECODE, 4, "decode", "decoding the head")                                                           \
  X(FetchWaitDram, FETCH_WAIT_DRAM, 5, "instruction data", "fetch: instruction buffer empty, data outstanding") \
  X(FetchWaitQueue, FETCH_WAIT_QUEUE, 6, "command queue slot", "fetch: head blocked by a full command queue")   \
  X(FetchDone, FETCH_DONE, 7, "done", "fetch: every instruction dispatched")

// X(Name, SV_NAME, meaning), numbered in order from 0.
#define VDLA_HW_COUNTERS(X)                                                          \
  X(Cycles, CYCLES, "clock cycles of the run")                                       \
  X(FetchBusy, FETCH_BUSY, "fetch busy")                                             \
  X(FetchWaitDram, FETCH_WAIT_DRAM, "fetch waits for instruction data")              \
  X(FetchWaitQueue, FETCH_WAIT_QUEUE, "fetch waits for a command-queue slot")        \
  X(LoadBusy, LOAD_BUSY, "load busy")                                                \
  X(LoadWaitToken, LOAD_WAIT_TOKEN, "load waits for a token")                        \
  X(LoadWaitRoom, LOAD_WAIT_ROOM, "load waits for token-queue room")                 \
  X(LoadWaitDram, LOAD_WAIT_DRAM, "load waits for DRAM (a subset of busy)")          \
  X(ComputeBusy, COMPUTE_BUSY, "compute busy")                                       \
  X(ComputeWaitToken, COMPUTE_WAIT_TOKEN, "compute waits for a token")               \
  X(ComputeWaitRoom, COMPUTE_WAIT_ROOM, "compute waits for token-queue room")        \
  X(ComputeWaitDram, COMPUTE_WAIT_DRAM, "compute waits for DRAM (a subset of busy)") \
  X(StoreBusy, STORE_BUSY, "store busy")                                             \
  X(StoreWaitToken, STORE_WAIT_TOKEN, "store waits for a token")                     \
  X(StoreWaitRoom, STORE_WAIT_ROOM, "store waits for token-queue room")              \
  X(StoreWaitDram, STORE_WAIT_DRAM, "store waits for DRAM (a subset of busy)")       \
  X(GemmUops, GEMM_UOPS, "GEMM micro-op cycles (the GEMM core consumed a micro-op)") \
  X(AluVectors, ALU_VECTORS, "ALU vector cycles")
