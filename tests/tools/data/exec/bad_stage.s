; the load module has no previous stage
LOAD INP sram=0 dram=8 y=1 x=1 stride=1 pop_prev
FINISH
