; 4294967296 = 2^32 does not fit any SRAM index; it must not wrap to 0
LOAD INP sram=4294967296 dram=0 y=1 x=1 stride=1
FINISH
