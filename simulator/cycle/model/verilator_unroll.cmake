# Loop unrolling for every Verilated cycle model, built in
# (simulator/cycle/CMakeLists.txt) or on demand (model/CMakeLists.txt): however
# large the array, unroll. Verilator's default limits (64 iterations, 30,000
# statements) keep the GEMM's per-output loops of a 1x32x32 core as loops,
# whose variable bit selects into 1024-bit vectors cost a library call each;
# unrolled, their offsets are constants, and zcu104's ResNet-18 simulates in
# half the time.
set(VDLA_VERILATOR_UNROLL_ARGS --unroll-count 1024 --unroll-stmts 1000000)
