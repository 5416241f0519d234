// The one Python interpreter of a process that loads the bridge: started on first use with the
// interpreter opcert was built for (the one whose torch is opcert's LibTorch), never finalised
// (torch does not survive Py_Finalize), its GIL released between calls.
#pragma once

#include <string>
#include <vector>

namespace opcert::python_bridge {

struct InterpreterState {
  bool started = false;
  std::string error;               // why it could not start, when !started
  std::vector<std::string> notes;  // environments it could not use (opcert._environment)
};

/// Starts the interpreter once (thread-safe) and imports opcert._host; later calls return the
/// same state. Never throws.
const InterpreterState& interpreter();

}  // namespace opcert::python_bridge
