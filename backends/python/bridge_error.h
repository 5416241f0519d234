// The Python bridge's opcert_error: a code and a one-line message. A Python exception becomes
// one with its traceback's last line ("ValueError: ..."), opcert.Unsupported becomes UNSUPPORTED.
#pragma once

#include <opcert/backend_abi.h>

#include <string>

struct opcert_error {
  int32_t code = OPCERT_ERROR_UNKNOWN;
  std::string message;
};

namespace opcert::python_bridge {

opcert_error* make_error(opcert_error_code code, std::string message);

/// The error for the exception being handled (call from a catch block, with the GIL held for a
/// Python exception); never throws.
opcert_error* current_exception_error(const char* what);

}  // namespace opcert::python_bridge
