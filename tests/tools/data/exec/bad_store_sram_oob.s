; tiny has 64 OUT entries: entries [63, 65) overflow it.
STORE OUT sram=63 dram=0 y=1 x=2 stride=2
FINISH
