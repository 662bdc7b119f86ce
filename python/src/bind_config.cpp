// Hardware configs: parsing, validation and hashing are the C++ config layer's;
// Python holds a config as its JSON document (vdla.Config).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nlohmann/json.hpp>

#include "bindings.h"
#include "options.h"
#include "vdla/driver/device.h"
#include "vdla/hw/error.h"

namespace nb = nanobind;

namespace vdla::python {

void bindConfig(nb::module_& m) {
  m.def("config_names", &hw::builtinConfigNames, "Names of the shipped hardware configs.");
  m.def(
      "config_canonical",
      [](const std::string& spec) {
        const hw::HwConfig cfg = configFromSpec(spec);
        return hw::configToJson(cfg, -1);
      },
      nb::arg("spec"),
      "Parses and validates a config (shipped name, file, or JSON text) and returns its canonical JSON, with the "
      "derived quantities and the hash.");
  m.def("device_backends", &driver::deviceBackends, "Device backends this build can create.");
}

}  // namespace vdla::python
