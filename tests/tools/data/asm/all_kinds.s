; Every instruction kind of the VDLA assembly, with padding, all dependency
; flags, reset, immediates and boundary values. Every value fits the smallest
; shipped config (tiny), so the file assembles for every shipped config.
#   comments start with ';' or '#'; blank lines and case of mnemonics are free

; ---- LOAD into every loadable memory
LOAD  UOP  sram=0 dram=0 y=1 x=4 stride=4
LOAD  WGT  sram=0 dram=0x10 y=1 x=2 stride=2 push_next
LOAD  INP  sram=0 dram=0x40 y=4 x=8 stride=8 pad=1,1,1,1 pop_next
load  acc  sram=3 dram=7 y=2 x=3 stride=5 pad=0,2,0,0      # lower case
LOAD  ACC8 sram=1 dram=0x0 y=1 x=1 stride=1 pad=0,0,3,0
LOAD  WGT  sram=255 dram=0xffffffff y=65535 x=65535 stride=65535 pad=15,15,15,15 pop_next push_next
  LOAD INP sram=12 dram=8 y=0x10 x=+2 stride=2             ; hex and explicitly signed numbers, leading blanks

; ---- GEMM
GEMM  uops=0:4 iters=2,3 dst=16,1 src=16,1 wgt=0,1 reset push_prev
GEMM  uops=1:2 iters=1,1 pop_prev pop_next push_next
GEMM  uops=255:511 iters=16383,16383 dst=63,63 src=127,127 wgt=63,63 pop_prev pop_next push_prev push_next
gemm  uops=0:0

; ---- ALU: every operation, with a tensor operand and with an immediate
ALU   MIN  uops=0:1 iters=1,16 dst=0,1 src=0,1
ALU   MIN  uops=0:1 iters=1,16 dst=0,1 imm=-1
ALU   MAX  uops=0:1 iters=1,16 dst=0,1 src=0,1
ALU   MAX  uops=0:1 iters=1,16 dst=0,1 src=0,1 imm=0
ALU   ADD  uops=0:1 iters=1,1 src=2,3
ALU   ADD  uops=0:1 iters=1,1 imm=-5 pop_prev
ALU   MUL  uops=0:1 iters=1,1 src=4,5 push_prev
ALU   MUL  uops=0:1 iters=1,1 imm=32767 pop_next
ALU   SHR  uops=0:1 iters=1,1 src=6,7 push_next
ALU   SHR  uops=0:1 iters=1,1 imm=-32768
ALU   RSHR uops=2:3 iters=5,6 dst=7,8 src=9,10
alu   rshr uops=0:1 iters=1,1 imm=3
ALU   MOV  uops=0:1 iters=1,1 src=63,63
ALU   MOV  uops=255:511 iters=16383,16383 dst=63,63 src=63,63 imm=0x7fff pop_prev pop_next push_prev push_next

; ---- STORE and FINISH
STORE OUT  sram=0 dram=0x100 y=4 x=8 stride=8 pop_prev push_prev
STORE OUT  sram=255 dram=0xffffffff y=65535 x=65535 stride=65535
FINISH  pop_next  # FINISH carries flags too
FINISH
