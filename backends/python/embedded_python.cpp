#include "embedded_python.h"

#include <Python.h>
#include <dlfcn.h>
#include <pybind11/pybind11.h>

#include <filesystem>
#include <mutex>

namespace py = pybind11;
namespace fs = std::filesystem;

namespace opcert::python_bridge {
namespace {

// opcert opens plugins RTLD_LOCAL, which hides libpython's symbols from the extension modules
// Python loads later (they do not link libpython): make them global.
void export_libpython_symbols() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&Py_InitializeFromConfig), &info) != 0 && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

// The folder holding the `opcert` Python package that matches this bridge: an install's
// <datadir>/opcert/python, seen from <libdir>/opcert where the bridge lies, else the source tree's
// python/.
std::string api_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&api_folder), &info) != 0 && info.dli_fname != nullptr) {
    const fs::path installed = fs::path(info.dli_fname).parent_path() / OPCERT_BRIDGE_PYTHON_FROM_LIB;
    std::error_code ec;
    if (fs::is_regular_file(installed / "opcert" / "_host.py", ec)) return fs::weakly_canonical(installed, ec).string();
  }
  return OPCERT_BRIDGE_SOURCE_PYTHON_DIR;
}

std::string status_text(const PyStatus& status) {
  std::string text = status.err_msg != nullptr ? status.err_msg : "Python failed to start";
  if (status.func != nullptr) text = std::string(status.func) + ": " + text;
  return text;
}

// The interpreter outlives any use of this library, so the library must too: a host that unloads
// and reloads it would otherwise start a second runtime over the first.
void stay_loaded() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&stay_loaded), &info) != 0 && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

InterpreterState start() {
  InterpreterState state;
  stay_loaded();
  if (Py_IsInitialized()) {
    state.error = "this process already runs a Python interpreter: the bridge serves Python backends to opcert, "
                  "not inside Python";
    return state;
  }
  export_libpython_symbols();
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // opcert's workers handle their own signals
  config.parse_argv = 0;
  // The interpreter finds its prefix (and a virtual environment's pyvenv.cfg) from its program.
  PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, OPCERT_BRIDGE_PYTHON_EXECUTABLE);
  char* argv[] = {const_cast<char*>("opcert")};
  if (!PyStatus_Exception(status)) status = PyConfig_SetBytesArgv(&config, 1, argv);
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    state.error = "cannot start Python (" OPCERT_BRIDGE_PYTHON_EXECUTABLE "): " + status_text(status);
    return state;
  }
  {
    py::gil_scoped_acquire gil;
    try {
      py::module_::import("sys").attr("path").attr("insert")(0, api_folder());
      const py::object notes = py::module_::import("opcert._host").attr("start")(OPCERT_BRIDGE_LIBTORCH_VERSION);
      for (const auto& n : notes) state.notes.push_back(py::str(n).cast<std::string>());
      state.started = true;
    } catch (const std::exception& e) {  // py::error_already_set, or a failed cast of start's answer
      state.error = std::string("cannot import opcert's Python API from ") + api_folder() + ": " + e.what();
    }
  }
  return state;
}

}  // namespace

const InterpreterState& interpreter() {
  static std::once_flag once;
  static InterpreterState state;
  std::call_once(once, [] {
    const bool already = Py_IsInitialized();
    state = start();
    if (!already && Py_IsInitialized()) PyEval_SaveThread();  // every call takes the GIL itself
  });
  return state;
}

}  // namespace opcert::python_bridge
