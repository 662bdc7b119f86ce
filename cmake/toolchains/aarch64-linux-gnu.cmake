# Cross toolchain for 64-bit ARM Linux boards (Zynq UltraScale+, e.g. Ultra96,
# ZCU104): Debian's g++-aarch64-linux-gnu, generic armv8-a like the CPU back
# end's `--cpu aarch64` (compiler/llvm/src/target.cpp).
#   cmake -S . -B build/arm64-runtime -G Ninja -DVDLA_RUNTIME_ONLY=ON \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(VDLA_ARM_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${VDLA_ARM_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${VDLA_ARM_TRIPLE}-g++)
set(CMAKE_C_FLAGS_INIT "-march=armv8-a")
# -Wno-psabi: see armv7-linux-gnueabihf.cmake (GCC's notes on ABI changes of old releases).
set(CMAKE_CXX_FLAGS_INIT "-march=armv8-a -Wno-psabi")

# Libraries and headers only from the target's sysroot; programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${VDLA_ARM_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Lets CMake (and ctest) run the target's programs on an x86-64 host.
find_program(VDLA_QEMU_AARCH64 qemu-aarch64)
if(VDLA_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${VDLA_QEMU_AARCH64} -L /usr/${VDLA_ARM_TRIPLE})
endif()
