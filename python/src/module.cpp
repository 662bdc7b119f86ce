// vdla._core: the toolkit's C++ API for Python. The classes and functions
// here are thin: every piece of work is the C++ layers' (vdla/api above all),
// and the package's Python modules (python/vdla) give them their Python form.
// Options and results cross as JSON text, which the Python side turns into
// keyword arguments and plain dicts and lists.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "vdla/api/version.h"
#include "vdla/hw/error.h"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "VDLA's C++ core (use the vdla package, which wraps it)";

  // Every error of the toolkit arrives as vdla.Error with the C++ message.
  static nb::object error_type = nb::steal(PyErr_NewExceptionWithDoc(
      "vdla._core.Error", "An error reported by the VDLA toolkit (the message names the file, node or field).",
      PyExc_RuntimeError, nullptr));
  m.attr("Error") = error_type;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const nb::builtin_exception&) {
      throw;  // nanobind's own (TypeError, ...)
    } catch (const std::runtime_error& e) {
      PyErr_SetString(error_type.ptr(), e.what());
    } catch (const std::logic_error& e) {
      PyErr_SetString(error_type.ptr(), e.what());
    }
  });

  m.def("version", &vdla::api::version, "The toolkit's version.");
  vdla::python::bindConfig(m);
  vdla::python::bindModel(m);
  vdla::python::bindSession(m);
  vdla::python::bindStudies(m);
}
