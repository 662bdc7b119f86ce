FINISH
LOAD INP sram=0 reset
