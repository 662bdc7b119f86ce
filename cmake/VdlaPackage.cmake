# The toolkit as an installable package: one shared library, libvdla.so
# (imported target vdla::vdla), holding every layer; the `vdla` tool; the
# public headers of every layer; and a CMake package so that another project
# writes
#
#   find_package(vdla CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE vdla::vdla)
#
# The layers stay static libraries inside this build (the tool and the tests
# link them directly); the shared library takes each of them whole, so that
# everything the public headers declare is in it, whether or not the tool
# uses it (the target table of vdla_targets brings every back end the build
# has, with nothing to register). Its own
# dependencies (LLVM, SystemC, ONNX, protobuf, libjpeg, NVRTC) are shared
# libraries of the system, found again by nothing but the dynamic loader; the
# one header-only dependency of the public headers, nlohmann_json, is found by
# the package config.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_vdla_package_layers
  vdla_hw vdla_sim vdla_progen vdla_cycle_sim vdla_hls_csim vdla_driver vdla_selftest
  vdla_runtime vdla_compiler vdla_frontend_onnx vdla_llvm vdla_cuda vdla_targets vdla_explore vdla_api)
set(_vdla_package_archives "")
set(_vdla_package_include_dirs "")
foreach(layer ${_vdla_package_layers})
  if(NOT TARGET ${layer})
    continue()  # optional layers (cycle simulator, CUDA) absent from this build
  endif()
  list(APPEND _vdla_package_archives $<TARGET_FILE:${layer}>)
  get_target_property(dirs ${layer} INTERFACE_INCLUDE_DIRECTORIES)
  foreach(dir ${dirs})
    if(dir MATCHES "^${PROJECT_SOURCE_DIR}/.*/include$" AND NOT dir IN_LIST _vdla_package_include_dirs)
      list(APPEND _vdla_package_include_dirs ${dir})
    endif()
  endforeach()
endforeach()

# Everything comes from the archives; CMake wants one source of its own.
add_library(vdla_library SHARED ${PROJECT_SOURCE_DIR}/cmake/package/library.cpp)
add_library(vdla::vdla ALIAS vdla_library)
set_target_properties(vdla_library PROPERTIES
  OUTPUT_NAME vdla
  EXPORT_NAME vdla
  # No version in the file name: the Python package copies the library next
  # to its module, where one plain libvdla.so is all the loader needs.
  # The system libraries it links outside the standard directories (NVRTC
  # under /usr/local/cuda) stay found after installation.
  INSTALL_RPATH_USE_LINK_PATH ON)
foreach(layer ${_vdla_package_layers})
  if(TARGET ${layer})
    add_dependencies(vdla_library ${layer})
  endif()
endforeach()
# Whole archives first; the layers again as ordinary link items afterwards,
# which adds nothing from them (all is defined) but brings their own
# dependencies, in order, onto the link line.
set(_vdla_package_link_layers "")
foreach(layer ${_vdla_package_layers})
  if(TARGET ${layer})
    list(APPEND _vdla_package_link_layers ${layer})
  endif()
endforeach()
target_link_libraries(vdla_library PRIVATE
  "-Wl,--whole-archive" ${_vdla_package_archives} "-Wl,--no-whole-archive"
  ${_vdla_package_link_layers})
# An undefined symbol is a link error here, not a load error in a user's program.
# Calls inside the library bind to its own functions at link time rather
# than through the PLT (nothing is meant to interpose them).
target_link_options(vdla_library PRIVATE -Wl,--no-undefined -Wl,-Bsymbolic-functions)
target_link_libraries(vdla_library INTERFACE nlohmann_json::nlohmann_json)
foreach(dir ${_vdla_package_include_dirs})
  target_include_directories(vdla_library INTERFACE $<BUILD_INTERFACE:${dir}>)
endforeach()
target_include_directories(vdla_library INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

# ---- installation
install(TARGETS vdla_library EXPORT vdlaTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS vdla RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir ${_vdla_package_include_dirs})
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
endforeach()
# The shipped hardware configs and FPGA parts, for users' own configs to start from.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/vdla_hw/config/ DESTINATION ${CMAKE_INSTALL_DATADIR}/vdla/config
        FILES_MATCHING PATTERN "*.json")
install(FILES ${PROJECT_SOURCE_DIR}/vdla_hw/parts/fpga_parts.json DESTINATION ${CMAKE_INSTALL_DATADIR}/vdla)

set(_vdla_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/vdla)
install(EXPORT vdlaTargets NAMESPACE vdla:: DESTINATION ${_vdla_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/package/vdlaConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/package/vdlaConfig.cmake
                              INSTALL_DESTINATION ${_vdla_cmake_dir}
                              PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/package/vdlaConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/package/vdlaConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/package/vdlaConfigVersion.cmake
        DESTINATION ${_vdla_cmake_dir})
