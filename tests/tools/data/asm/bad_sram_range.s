; tiny has 8-bit SRAM indices, so sram=256 is out of range on line 4
LOAD INP sram=0 dram=0 y=1 x=1 stride=1

LOAD INP sram=256 dram=0 y=1 x=1 stride=1
FINISH
