; load waits for compute (pop_next) and compute waits for load (pop_prev).
LOAD INP sram=0 dram=8 y=1 x=1 stride=1 pop_next push_next
GEMM uops=0:1 iters=1,1 pop_prev push_prev
FINISH
