; tiny has 128 INP entries: entries [127, 129) overflow it.
LOAD INP sram=127 dram=0 y=1 x=2 stride=2
FINISH
