ALU ADD uops=0:1 iters=1,1 imm=32767
ALU ADD uops=0:1 iters=1,1 imm=32768
FINISH
