# Project-wide options. Components that only some users need are ON when their
# dependency is present and cleanly OFF otherwise; forcing one ON without its
# dependency is a configuration error rather than a silent skip.

option(VDLA_BUILD_TESTS "Build the GoogleTest suite" ON)
# Off by default: GCC 12 miscompiles some vectorised code with -march=native on
# AVX-512 hosts (seen on a GoogleTest comparison of two std::vector<int64_t>).
option(VDLA_NATIVE "Tune host code for the build machine (-march=native)" OFF)
option(VDLA_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

# Optional components: AUTO means "on if the dependency is found".
set(VDLA_WITH_SYSTEMC AUTO CACHE STRING "Cycle-accurate simulator (Verilator + SystemC): AUTO, ON or OFF")
set(VDLA_WITH_CUDA AUTO CACHE STRING "CUDA backend: AUTO, ON or OFF")
set(VDLA_WITH_XRT AUTO CACHE STRING "Xilinx XRT driver backend: AUTO, ON or OFF")

find_package(nlohmann_json 3.10 REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
find_package(Threads REQUIRED)

# Resolves an AUTO/ON/OFF option against whether its dependency was found.
function(vdla_resolve_optional name found)
  set(value "${${name}}")
  if(value STREQUAL "ON" AND NOT ${found})
    message(FATAL_ERROR "${name}=ON but its dependency was not found")
  endif()
  if(value STREQUAL "OFF" OR NOT ${found})
    set(${name}_ENABLED OFF PARENT_SCOPE)
  else()
    set(${name}_ENABLED ON PARENT_SCOPE)
  endif()
endfunction()

# The cycle simulator needs Verilator (its CMake package provides verilate())
# and SystemC (headers and library; Debian ships no CMake package for it).
find_package(verilator QUIET HINTS $ENV{VERILATOR_ROOT} /usr/share/verilator)
find_path(VDLA_SYSTEMC_INCLUDE_DIR systemc.h HINTS $ENV{SYSTEMC_INCLUDE} $ENV{SYSTEMC_HOME}/include)
find_library(VDLA_SYSTEMC_LIBRARY systemc HINTS $ENV{SYSTEMC_LIBDIR} $ENV{SYSTEMC_HOME}/lib $ENV{SYSTEMC_HOME}/lib-linux64)
if(verilator_FOUND AND VDLA_SYSTEMC_INCLUDE_DIR AND VDLA_SYSTEMC_LIBRARY)
  set(_vdla_systemc_found TRUE)
else()
  set(_vdla_systemc_found FALSE)
endif()
vdla_resolve_optional(VDLA_WITH_SYSTEMC _vdla_systemc_found)

# The CUDA backend needs no CUDA compiler at build time: kernels are compiled
# by NVRTC when a model is compiled, and the runtime loads the driver with
# dlopen. NVRTC and the toolkit headers (cuda.h) are all it needs.
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND AND TARGET CUDA::nvrtc AND EXISTS "${CUDAToolkit_INCLUDE_DIRS}/cuda.h")
  set(_vdla_cuda_found TRUE)
else()
  set(_vdla_cuda_found FALSE)
endif()
vdla_resolve_optional(VDLA_WITH_CUDA _vdla_cuda_found)

# The XRT backend needs XRT's native C++ API: the headers and xrt_coreutil
# (an XRT install sets XILINX_XRT, by default /opt/xilinx/xrt).
find_path(VDLA_XRT_INCLUDE xrt/xrt_device.h HINTS $ENV{XILINX_XRT}/include PATHS /opt/xilinx/xrt/include)
find_library(VDLA_XRT_COREUTIL_LIBRARY xrt_coreutil HINTS $ENV{XILINX_XRT}/lib PATHS /opt/xilinx/xrt/lib)
if(VDLA_XRT_INCLUDE AND VDLA_XRT_COREUTIL_LIBRARY)
  set(_vdla_xrt_found TRUE)
else()
  set(_vdla_xrt_found FALSE)
endif()
vdla_resolve_optional(VDLA_WITH_XRT _vdla_xrt_found)

if(VDLA_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

function(vdla_print_options)
  message(STATUS "VDLA build type:            ${CMAKE_BUILD_TYPE}")
  message(STATUS "VDLA sanitizers:            ${VDLA_SANITIZE}")
  message(STATUS "VDLA cycle simulator:       ${VDLA_WITH_SYSTEMC_ENABLED}")
  message(STATUS "VDLA CUDA backend:          ${VDLA_WITH_CUDA_ENABLED}")
  message(STATUS "VDLA XRT backend:           ${VDLA_WITH_XRT_ENABLED}")
endfunction()
