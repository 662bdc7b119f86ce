LOAD OUT sram=0
