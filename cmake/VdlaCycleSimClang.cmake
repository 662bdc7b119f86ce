# The per-cycle Verilated code of the cycle simulator compiled by clang.
#
# The Verilated evaluation functions (the `*___024root__DepSet_*__N.cpp` files
# that are not `__Slow`) are long straight-line C++ in which nearly all of the
# simulator's time goes. On the pynq GEMM benchmark, clang 14 at -O2 makes them
# about 12% faster than gcc 12 with profile-guided optimisation (6% fewer
# instructions, and fewer stalls); the rest of the project stays on the
# project's compiler. vdla_cycle_sim_clang(<lib>) takes those files out of
# <lib>'s sources, compiles each with clang into an object file (custom
# commands with depfiles, so header edits recompile them) and links the
# objects into <lib> instead. Both compilers follow the Itanium C++ ABI and use
# the same libstdc++, so the objects mix; the Verilator runtime's inline
# functions that both emit are identical definitions.
#
# -DVDLA_CYCLE_SIM_CLANG=OFF compiles everything with the project's compiler.
# It is used only for optimised builds by gcc that run on the build machine
# (not cross-compiled, not sanitised) and when clang++ is found (Debian's
# clang-14, scripts/setup.sh).
option(VDLA_CYCLE_SIM_CLANG "Compile the cycle simulator's per-cycle Verilated code with clang" ON)
find_program(VDLA_CYCLE_SIM_CLANGXX NAMES clang++-14 clang++ DOC "clang for the cycle simulator's Verilated code")

function(vdla_cycle_sim_clang_enabled out)
  set(ok OFF)
  if(VDLA_CYCLE_SIM_CLANG AND VDLA_CYCLE_SIM_CLANGXX AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU"
     AND NOT CMAKE_CROSSCOMPILING AND NOT VDLA_SANITIZE AND CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$")
    set(ok ON)
  endif()
  set(${out} ${ok} PARENT_SCOPE)
endfunction()

# vdla_cycle_sim_clang(<lib>): call after every verilate() into <lib> and before
# vdla_cycle_sim_pgo(<lib>) (whose instrumented copy then links the same
# objects; gcc's profile covers the rest of the library).
function(vdla_cycle_sim_clang lib)
  get_target_property(sources ${lib} SOURCES)
  set(kept "")
  set(objects "")
  set(obj_dir ${CMAKE_CURRENT_BINARY_DIR}/clang_objects)
  set(debug_flags "")
  if(CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
    set(debug_flags -g)
  endif()
  # The defines verilate() and the project set on <lib> (VM_TRACE, ...; never
  # empty), one -D argument each (COMMAND_EXPAND_LISTS splits the list).
  set(define_flags "-D$<JOIN:$<TARGET_PROPERTY:${lib},COMPILE_DEFINITIONS>,$<SEMICOLON>-D>")
  foreach(src ${sources})
    get_filename_component(name ${src} NAME)
    if(NOT name MATCHES "^V[A-Za-z0-9_]*___024root__DepSet_h[0-9a-f]+__[0-9]+\\.cpp$")
      list(APPEND kept ${src})
      continue()
    endif()
    get_filename_component(dir ${src} DIRECTORY)
    set(obj ${obj_dir}/${name}.o)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${obj_dir}
      COMMAND ${VDLA_CYCLE_SIM_CLANGXX} -std=c++17 -O2 -DNDEBUG -fPIC -w ${debug_flags}
              "${define_flags}"
              -I${dir} -I${VERILATOR_ROOT}/include -I${VERILATOR_ROOT}/include/vltstd
              -MD -MF ${obj}.d -c ${src} -o ${obj}
      DEPENDS ${src}
      DEPFILE ${obj}.d
      COMMENT "Compiling ${name} with clang"
      COMMAND_EXPAND_LISTS VERBATIM)
    set_source_files_properties(${obj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    list(APPEND objects ${obj})
  endforeach()
  if(NOT objects)
    message(FATAL_ERROR "vdla_cycle_sim_clang: ${lib} has no Verilated evaluation sources")
  endif()
  set_property(TARGET ${lib} PROPERTY SOURCES ${kept} ${objects})
endfunction()
