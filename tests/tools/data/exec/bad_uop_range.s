; tiny has 256 micro-op entries: the range [0, 300) overflows it.
GEMM uops=0:300 iters=1,1 reset
FINISH
