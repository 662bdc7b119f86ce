; 4294967297 = 2^32 + 1 does not fit a 16-bit signed immediate; it must not wrap to 1
ALU ADD uops=0:1 iters=1,1 imm=4294967297
FINISH
