# Cross toolchain for 32-bit ARM Linux boards with hard float: the Cortex-A9 of
# Zynq-7000 (Pynq-Z1/Z2), which has NEON. Debian's g++-arm-linux-gnueabihf.
# The same CPU as the CPU back end's `--cpu armv7` (compiler/llvm/src/target.cpp),
# so the runtime and the generated code agree on the float ABI.
#   cmake -S . -B build/arm-runtime -G Ninja -DVDLA_RUNTIME_ONLY=ON \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/armv7-linux-gnueabihf.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)

set(VDLA_ARM_TRIPLE arm-linux-gnueabihf)
set(CMAKE_C_COMPILER ${VDLA_ARM_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${VDLA_ARM_TRIPLE}-g++)
set(CMAKE_C_FLAGS_INIT "-march=armv7-a -mtune=cortex-a9 -mfpu=neon -mfloat-abi=hard")
# -Wno-psabi: GCC notes on every std::vector iterator passed by value that the
# ARM ABI for it changed in GCC 7.1; the whole runtime is built by one compiler.
set(CMAKE_CXX_FLAGS_INIT "-march=armv7-a -mtune=cortex-a9 -mfpu=neon -mfloat-abi=hard -Wno-psabi")

# Libraries and headers only from the target's sysroot; programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${VDLA_ARM_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Lets CMake (and ctest) run the target's programs on an x86-64 host.
find_program(VDLA_QEMU_ARM qemu-arm)
if(VDLA_QEMU_ARM)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${VDLA_QEMU_ARM} -L /usr/${VDLA_ARM_TRIPLE})
endif()
