# nlohmann_json for a cross build: the library is header-only and the same for
# every architecture, but the build machine's copy lives in /usr/include,
# which a cross compiler must not search (its libc headers are for the build
# machine). The headers are copied into the build tree and offered as the
# usual imported target.
find_path(VDLA_HOST_JSON_INCLUDE nlohmann/json.hpp PATHS /usr/include /usr/local/include NO_CMAKE_FIND_ROOT_PATH
          NO_DEFAULT_PATH)
if(NOT VDLA_HOST_JSON_INCLUDE)
  message(FATAL_ERROR "VDLA_RUNTIME_ACCEL needs nlohmann/json.hpp on the build machine (apt-get install nlohmann-json3-dev)")
endif()
set(_vdla_json_copy ${CMAKE_BINARY_DIR}/header-only)
file(COPY ${VDLA_HOST_JSON_INCLUDE}/nlohmann DESTINATION ${_vdla_json_copy})
if(NOT TARGET nlohmann_json::nlohmann_json)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${_vdla_json_copy})
endif()
