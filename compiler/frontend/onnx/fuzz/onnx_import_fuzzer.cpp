// libFuzzer target: any byte string given to the ONNX importer must either
// import or fail with OnnxImportError. Any other exception, a crash or a
// sanitizer report is a bug. Built by scripts/onnx/fuzz.sh (-DVDLA_FUZZ=ON).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include "vdla/frontend/onnx_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    auto graph = vdla::frontend::importOnnxBytes(bytes, "fuzz.onnx");
  } catch (const vdla::frontend::OnnxImportError&) {
    // The expected way to refuse a bad model.
  } catch (const std::exception& e) {
    std::cerr << "importer threw something other than OnnxImportError: " << e.what() << "\n";
    std::abort();
  }
  return 0;
}
