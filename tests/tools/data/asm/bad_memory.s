LOAD FOO sram=0
