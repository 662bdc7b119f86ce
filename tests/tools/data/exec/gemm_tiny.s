; C = A x W^T on the tiny config (batch 2, block_in 4, block_out 8), int8 in,
; int32 accumulate, int8 (truncated) out. A is 2x8 (2 input blocks), W is 16x8
; (2x2 weight blocks), C is 2x16 (2 output blocks).
;
; DRAM (one buffer, addresses in entries of the memory being moved):
;   UOP  byte   0  = UOP entry  0   1 micro-op {dst=2, src=3, wgt=5}
;   INP  byte  64  = INP entry  8   A blocks k=0,1
;   WGT  byte 128  = WGT entry  4   W blocks n*2+k for n,k in 0..1
;   OUT  byte 512  = OUT entry 32   C blocks n=0,1
; On chip: INP entries 3..4, WGT entries 5..8, ACC/OUT entries 2..3.
LOAD  UOP sram=0 dram=0 y=1 x=1 stride=1
LOAD  INP sram=3 dram=8 y=1 x=2 stride=2
LOAD  WGT sram=5 dram=4 y=1 x=4 stride=4 push_next
GEMM  uops=0:1 iters=2,1 dst=1,0 reset
; acc[2+n] += inp[3+k] * wgt[5+2n+k]^T
GEMM  uops=0:1 iters=2,2 dst=1,0 src=0,1 wgt=2,1 pop_prev push_next
STORE OUT sram=2 dram=32 y=1 x=2 stride=2 pop_prev push_prev
FINISH pop_next
