// The error type for bad user input (files, flags, environment): the CLI prints its message as
// one line and exits with code 2. Messages say what is wrong, where, and what to do.
#pragma once

#include <stdexcept>
#include <string>

namespace opcert {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace opcert

namespace opcert {

/// No usable backend for what was asked (none matched, or the match failed to load): exit code 3.
class NoBackendError : public std::runtime_error {
 public:
  explicit NoBackendError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace opcert
