# Build-time script (cmake -P) that snapshots everything an on-demand
# cycle-accurate model is built from -- the RTL, the harness sources and
# headers, the model project (this folder) -- into a "model kit", and
# fingerprints it.
#
# The kit lives at ${KIT_ROOT}/<first 16 digits of the fingerprint>/ and is
# never changed once written, so a program always builds its models from the
# sources it was itself compiled with, even after the source tree has moved on
# (its harness classes must match the model's byte for byte). The fingerprint
# is compiled into vdla_cycle_sim (INFO_HEADER) and keys the model cache, so a
# model built from other RTL or harness sources is never loaded.
#
# Inputs come from ${INPUTS} (written by simulator/cycle/CMakeLists.txt):
#   KIT_ROOT, RTL_FILES (in dependency order), SIM_TOP, SRC_FILES,
#   SRC_HEADER_DIR, INCLUDE_DIRS, MODEL_DIR, IDENTITY (tool versions),
#   HEADER_TEMPLATE, INFO_HEADER, STAMP.
include(${INPUTS})

set(staging ${KIT_ROOT}/staging)
file(REMOVE_RECURSE ${staging})
file(MAKE_DIRECTORY ${staging}/rtl ${staging}/src ${staging}/include ${staging}/model)

set(rtl_names "")
foreach(f ${RTL_FILES})
  get_filename_component(name ${f} NAME)
  file(COPY_FILE ${f} ${staging}/rtl/${name})
  string(APPEND rtl_names "${name}\n")
endforeach()
file(WRITE ${staging}/rtl/sources.txt "${rtl_names}")
file(COPY_FILE ${SIM_TOP} ${staging}/rtl/vdla_sim_top.sv)

file(GLOB headers ${SRC_HEADER_DIR}/*.h)
foreach(f ${SRC_FILES} ${headers})
  get_filename_component(name ${f} NAME)
  file(COPY_FILE ${f} ${staging}/src/${name})
endforeach()
foreach(dir ${INCLUDE_DIRS})
  file(COPY ${dir}/ DESTINATION ${staging}/include)
endforeach()
foreach(name CMakeLists.txt model_plugin.cpp fast_model_dpi.cpp exports.map model_printf.h verilator_unroll.cmake)
  file(COPY_FILE ${MODEL_DIR}/${name} ${staging}/model/${name})
endforeach()

# The fingerprint: every file of the kit by path and content, and the tools.
file(GLOB_RECURSE files RELATIVE ${staging} ${staging}/*)
list(SORT files)
set(manifest "${IDENTITY}\n")
foreach(f ${files})
  file(SHA256 ${staging}/${f} sum)
  string(APPEND manifest "${sum}  ${f}\n")
endforeach()
string(SHA256 fingerprint "${manifest}")
file(WRITE ${staging}/manifest.txt "${manifest}")
file(WRITE ${staging}/fingerprint "${fingerprint}")

string(SUBSTRING ${fingerprint} 0 16 short)
set(kit ${KIT_ROOT}/${short})
if(EXISTS ${kit}/fingerprint)
  file(READ ${kit}/fingerprint existing)
  if(NOT existing STREQUAL fingerprint)
    message(FATAL_ERROR "model kit ${kit} holds fingerprint ${existing}, expected ${fingerprint}; remove ${KIT_ROOT}")
  endif()
  file(REMOVE_RECURSE ${staging})
  file(TOUCH_NOCREATE ${kit}/fingerprint)  # the newest again (see pruning below)
else()
  file(REMOVE_RECURSE ${kit})
  file(RENAME ${staging} ${kit})
endif()

# Older kits stay for programs built before them (until relinked, they build
# their models from their own kit); only the ten most recently written are
# kept, so that a long run of edits does not fill the build tree. A program
# whose kit was removed still loads its cached models, and says to rebuild if
# it needs a new one.
file(GLOB kit_fingerprints ${KIT_ROOT}/*/fingerprint)
set(dated "")
foreach(f ${kit_fingerprints})
  file(TIMESTAMP ${f} when "%Y%m%d%H%M%S" UTC)
  get_filename_component(dir ${f} DIRECTORY)
  list(APPEND dated "${when}|${dir}")
endforeach()
list(SORT dated ORDER DESCENDING)
list(LENGTH dated count)
if(count GREATER 10)
  list(SUBLIST dated 10 -1 old_kits)
  foreach(entry ${old_kits})
    string(REGEX REPLACE "^[0-9]+\\|" "" dir "${entry}")
    if(NOT dir STREQUAL kit)
      file(REMOVE_RECURSE ${dir})
    endif()
  endforeach()
endif()

# The header is rewritten only when it changes, so that an unchanged kit
# recompiles nothing.
file(READ ${HEADER_TEMPLATE} header)
string(REPLACE "%KIT_DIR%" "${kit}" header "${header}")
string(REPLACE "%FINGERPRINT%" "${fingerprint}" header "${header}")
set(old "")
if(EXISTS ${INFO_HEADER})
  file(READ ${INFO_HEADER} old)
endif()
if(NOT old STREQUAL header)
  file(WRITE ${INFO_HEADER} "${header}")
endif()
file(TOUCH ${STAMP})
