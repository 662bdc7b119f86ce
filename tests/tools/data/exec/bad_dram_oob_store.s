; OUT entry 0x80000 is byte 8 MiB on tiny, far outside the 4 KiB DRAM buffer.
STORE OUT sram=0 dram=0x80000 y=1 x=1 stride=1
FINISH
