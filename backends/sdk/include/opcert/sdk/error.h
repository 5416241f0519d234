// The SDK's error type and the opcert_error object it becomes at the ABI boundary.
#pragma once

#include <opcert/backend_abi.h>

#include <new>
#include <stdexcept>
#include <string>

/// Definition of the ABI's opaque error for backends built with the SDK. Each library keeps its
/// own; the host only ever touches it through the table's error_* functions.
struct opcert_error {
  int32_t code;
  std::string message;
};

namespace opcert::sdk {

/// Throw this from backend code to choose the error code; any other std::exception maps to
/// OPCERT_ERROR_INTERNAL with its what() as the message.
class Error : public std::runtime_error {
 public:
  Error(opcert_error_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  opcert_error_code code() const { return code_; }

 private:
  opcert_error_code code_;
};

namespace detail {

/// The error returned when even the error object cannot be allocated. It is never freed:
/// error_destroy recognises it, so an out-of-memory failure is still reported, never NULL.
inline opcert_error* out_of_memory_error() {
  static opcert_error oom{OPCERT_ERROR_OUT_OF_MEMORY, "out of memory"};
  return &oom;
}

inline opcert_error* make_error(opcert_error_code code, const char* message) noexcept {
  try {
    return new opcert_error{code, message};
  } catch (...) {
    return out_of_memory_error();
  }
}

}  // namespace detail

/// Runs fn, turning any exception into a heap-allocated opcert_error (NULL on success).
template <class Fn>
opcert_error* guard(Fn&& fn) noexcept {
  try {
    fn();
    return nullptr;
  } catch (const Error& e) {
    return detail::make_error(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return detail::out_of_memory_error();
  } catch (const std::exception& e) {
    return detail::make_error(OPCERT_ERROR_INTERNAL, e.what());
  } catch (...) {
    return detail::make_error(OPCERT_ERROR_INTERNAL, "unknown exception");
  }
}

}  // namespace opcert::sdk
