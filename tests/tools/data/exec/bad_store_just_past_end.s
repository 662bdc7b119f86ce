; Run with --dram-size 4096: OUT entry 256 is byte 4096, the first byte past
; the DRAM buffer. The store must be reported, not written to whatever the
; device allocated next.
STORE OUT sram=0 dram=256 y=1 x=1 stride=1
FINISH
