#include "bridge_error.h"

#include <pybind11/pybind11.h>

#include <new>

namespace py = pybind11;

namespace opcert::python_bridge {
namespace {

// "ValueError: bad shape": the last line of the traceback, as Python prints it.
std::string exception_line(const py::error_already_set& e) {
  std::string type = "Exception";
  if (e.type()) type = py::str(e.type().attr("__name__")).cast<std::string>();
  std::string message = e.value() ? py::str(e.value()).cast<std::string>() : std::string();
  for (char& c : message)
    if (c == '\n') c = ' ';
  return message.empty() ? type : type + ": " + message;
}

opcert_error_code code_of(const py::error_already_set& e) {
  if (e.matches(PyExc_MemoryError)) return OPCERT_ERROR_OUT_OF_MEMORY;
  try {
    const py::object unsupported = py::module_::import("opcert.backend").attr("Unsupported");
    if (e.matches(unsupported)) return OPCERT_ERROR_UNSUPPORTED;
    // torch.cuda.OutOfMemoryError (torch >= 2.0) derives from RuntimeError; its name says it.
    if (py::str(e.type().attr("__name__")).cast<std::string>() == "OutOfMemoryError") return OPCERT_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception&) {
  }
  return OPCERT_ERROR_UNKNOWN;
}

}  // namespace

opcert_error* make_error(opcert_error_code code, std::string message) {
  return new (std::nothrow) opcert_error{code, std::move(message)};
}

opcert_error* current_exception_error(const char* what) {
  try {
    throw;
  } catch (py::error_already_set& e) {
    return make_error(code_of(e), std::string(what) + ": " + exception_line(e));
  } catch (const std::bad_alloc&) {
    return make_error(OPCERT_ERROR_OUT_OF_MEMORY, std::string(what) + ": out of host memory");
  } catch (const std::exception& e) {
    return make_error(OPCERT_ERROR_INTERNAL, std::string(what) + ": " + e.what());
  } catch (...) {
    return make_error(OPCERT_ERROR_INTERNAL, std::string(what) + ": unknown C++ exception");
  }
}

}  // namespace opcert::python_bridge
