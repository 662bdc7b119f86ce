; line 2 is fine, line 3 has an unknown mnemonic
LOAD INP sram=0 dram=0 y=1 x=1 stride=1
FROB INP sram=0
FINISH
