; 126 + (1+1+1) x (0+1+0) = 129 > 128 INP entries: the padding overflows.
LOAD INP sram=126 dram=0 y=1 x=1 stride=1 pad=1,1,0,0
FINISH
