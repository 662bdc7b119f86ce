#pragma once
// The toolkit's version (the CMake project's), for packages built against it.
namespace vdla::api {

const char* version();  // "0.1.0"

}  // namespace vdla::api
