GEMM uops=0:1 iters=1,1 imm=3
FINISH
