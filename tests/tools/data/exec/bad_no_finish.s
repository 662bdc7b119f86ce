LOAD UOP sram=0 dram=0 y=1 x=1 stride=1
GEMM uops=0:1 iters=1,1 reset
