# Profile-guided optimisation of the cycle simulator (gcc).
#
# The Verilated model is tens of thousands of lines of straight-line C++ with
# many data-dependent branches (which FSM state, which instruction, which
# handshake fires); without a profile gcc lays them out and inlines them by
# guesswork. vdla_cycle_sim_pgo(<lib>) builds, inside the same build:
#
#   <lib>_pgo_gen    an instrumented copy of <lib> (same sources, same flags,
#                    plus -fprofile-generate);
#   <lib>_pgo_train  a training program (simulator/cycle/pgo/pgo_train.cpp)
#                    linked against it;
#   <lib>_pgo_profile  runs the training program, which writes the profile
#                    (.gcda files) under <build>/simulator/cycle/pgo/data;
#
# and compiles <lib> itself with -fprofile-use against that profile. <lib>
# depends on the profile target, so on a fresh build the training runs before
# the library compiles; after an edit the instrumented object, the trainer and
# the training are redone first and the edited file is compiled with the new
# profile (unchanged objects keep the profile they were built with, which
# stays valid for them).
#
# Both copies of an object must agree on gcc's "auxiliary name" of the
# object: it names the .gcda file, and it is hashed into the identity of every
# function with internal linkage (static inline helpers of the Verilator
# runtime, anonymous-namespace functions), so with differing names those would
# silently get no profile. By default the name follows the object path, which
# differs between the two targets; -dumpdir gives both the same directory,
# and the name is that directory plus the source's base name (hence the check
# that base names are unique).
#
# -DVDLA_CYCLE_SIM_PGO=OFF builds the plain library (no instrumented copy, no
# training). PGO is only used for optimised builds by gcc 11 or later that
# run on the build machine (not cross-compiled, not sanitised).
option(VDLA_CYCLE_SIM_PGO "Profile-guided optimisation of the cycle simulator (gcc, optimised builds)" ON)

function(vdla_cycle_sim_pgo_enabled out)
  set(ok OFF)
  if(VDLA_CYCLE_SIM_PGO AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 11
     AND NOT CMAKE_CROSSCOMPILING AND NOT VDLA_SANITIZE AND CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$")
    set(ok ON)
  endif()
  set(${out} ${ok} PARENT_SCOPE)
endfunction()

# vdla_cycle_sim_pgo(<lib> TRAINER <source> LIBS <libraries the trainer uses besides the instrumented copy>)
# Call after <lib> is complete (all sources added, verilate() done).
function(vdla_cycle_sim_pgo lib)
  cmake_parse_arguments(ARG "" "TRAINER" "LIBS" ${ARGN})
  set(gen ${lib}_pgo_gen)
  set(data_dir ${CMAKE_CURRENT_BINARY_DIR}/pgo/data)
  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/pgo/trained.stamp)

  # The instrumented copy: every source and every build property of <lib>
  # (the Verilated sources' per-file flags are source properties of this
  # directory and apply to both targets).
  get_target_property(sources ${lib} SOURCES)
  list(REMOVE_DUPLICATES sources)  # the Verilator runtime is added once per verilate()
  set(seen "")
  foreach(src ${sources})
    if(src MATCHES "\\.(c|cc|cpp|cxx)$")
      get_filename_component(base ${src} NAME)
      if(base IN_LIST seen)
        message(FATAL_ERROR "vdla_cycle_sim_pgo: two sources of ${lib} are named ${base}; their profiles would collide")
      endif()
      list(APPEND seen ${base})
    endif()
  endforeach()
  set(aux_dir ${CMAKE_CURRENT_BINARY_DIR}/pgo/aux/)
  add_library(${gen} STATIC EXCLUDE_FROM_ALL ${sources})
  foreach(prop INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FEATURES LINK_LIBRARIES
               INTERFACE_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS INTERFACE_LINK_LIBRARIES
               INTERFACE_SYSTEM_INCLUDE_DIRECTORIES POSITION_INDEPENDENT_CODE CXX_STANDARD
               VERILATOR_TRACE VERILATOR_TRACE_VCD VERILATOR_TRACE_FST VERILATOR_SYSTEMC VERILATOR_COVERAGE)
    get_target_property(value ${lib} ${prop})
    if(NOT value STREQUAL "value-NOTFOUND")
      set_property(TARGET ${gen} PROPERTY ${prop} "${value}")
    endif()
  endforeach()
  get_target_property(lib_deps ${lib} MANUALLY_ADDED_DEPENDENCIES)
  if(lib_deps)
    add_dependencies(${gen} ${lib_deps})
  endif()
  # Single-threaded training: no atomic counter updates needed.
  target_compile_options(${gen} PRIVATE -fprofile-generate=${data_dir} -fprofile-update=single -dumpdir ${aux_dir})
  target_link_options(${gen} INTERFACE -fprofile-generate)

  add_executable(${lib}_pgo_train EXCLUDE_FROM_ALL ${ARG_TRAINER})
  target_link_libraries(${lib}_pgo_train PRIVATE ${gen} ${ARG_LIBS})

  # Old profile files are removed first: gcc merges counts into existing files,
  # and a file left by an earlier version of a source would not match it.
  add_custom_command(OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${data_dir}
    COMMAND $<TARGET_FILE:${lib}_pgo_train>
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${lib}_pgo_train
    COMMENT "Training the cycle simulator for profile-guided optimisation"
    VERBATIM)
  add_custom_target(${lib}_pgo_profile DEPENDS ${stamp})

  # The optimised library. -fprofile-partial-training keeps code the training
  # did not reach optimised as usual (instead of optimised for size), so a
  # workload unlike the training is no slower than without PGO.
  add_dependencies(${lib} ${lib}_pgo_profile)
  target_compile_options(${lib} PRIVATE -fprofile-use=${data_dir} -fprofile-partial-training -Wno-missing-profile
                                        -dumpdir ${aux_dir})
endfunction()
