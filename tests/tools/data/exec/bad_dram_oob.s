; INP entry 0x100000 is byte 8 MiB on tiny, far outside the 4 KiB DRAM buffer.
LOAD INP sram=0 dram=0x100000 y=1 x=2 stride=2
FINISH
