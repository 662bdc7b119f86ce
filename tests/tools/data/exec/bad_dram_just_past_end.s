; Run with --dram-size 4096: INP entry 512 is byte 4096, the first byte past
; the DRAM buffer. The access must be reported, not silently served from
; whatever the device allocated next.
LOAD INP sram=0 dram=512 y=1 x=2 stride=2
FINISH
