; micro-op 0 is {0,0,0}; dst reaches 0 + 1*32 + 1*32 = 64, but tiny has 64 ACC entries.
LOAD UOP sram=0 dram=0 y=1 x=1 stride=1
GEMM uops=0:1 iters=2,2 dst=32,32 reset
FINISH
