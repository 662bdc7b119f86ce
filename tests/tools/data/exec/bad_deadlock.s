; GEMM waits for a load->compute token that no LOAD pushes.
LOAD UOP sram=0 dram=0 y=1 x=1 stride=1
LOAD INP sram=0 dram=8 y=1 x=1 stride=1
GEMM uops=0:1 iters=1,1 pop_prev
FINISH
