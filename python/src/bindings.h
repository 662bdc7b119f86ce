#pragma once
// The parts of the vdla._core module, one file each.
#include <nanobind/nanobind.h>

namespace vdla::python {

void bindConfig(nanobind::module_& m);   // hardware configs (bind_config.cpp)
void bindModel(nanobind::module_& m);    // models, compilation, artifacts (bind_model.cpp)
void bindSession(nanobind::module_& m);  // running artifacts, accuracy runs (bind_session.cpp)
void bindStudies(nanobind::module_& m);  // profiling and design-space exploration (bind_studies.cpp)

}  // namespace vdla::python
