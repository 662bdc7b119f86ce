# Warnings, host tuning and sanitizers, applied to every target of the project.
add_compile_options(-Wall -Wextra -Wpedantic -Wno-unused-parameter)
# The test command (scripts/test.sh, CI) builds with warnings as errors, so the
# project's own code stays warning-free; users' builds are not stopped by a
# newer compiler's new warnings.
option(VDLA_WERROR "Treat compiler warnings in the project's code as errors" OFF)
if(VDLA_WERROR)
  add_compile_options(-Werror)
endif()
if(VDLA_NATIVE AND NOT CMAKE_CROSSCOMPILING)
  add_compile_options(-march=native)
endif()
if(VDLA_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# Declares a layer library with its public headers under <dir>/include.
function(vdla_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  add_library(${name} ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS} PRIVATE ${ARG_PRIVATE_DEPENDS})
endfunction()
