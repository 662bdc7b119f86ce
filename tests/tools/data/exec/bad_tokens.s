; LOAD pushes a load->compute token that nobody pops.
LOAD INP sram=0 dram=8 y=1 x=1 stride=1 push_next
FINISH
