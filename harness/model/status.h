// The outcome of one case on one implementation (DESIGN.md section 5).
#pragma once

#include <optional>
#include <string_view>

namespace opcert {

enum class Status {
  kPassed,      // every output element within its bound
  kFailed,      // some element out of bound, a NaN/Inf mismatch, or an out-of-bounds write
  kMistrusted,  // within bounds, but the output is degenerate (mostly zeros), so it proves little
  kSkipped,     // the implementation does not support the case; the reason says why
  kError,       // the backend returned an error, or the case could not be prepared
  kCrashed,     // the worker process died during the case
  kTimeout,     // the case ran past the per-case timeout
};

/// "PASSED", "FAILED", ... as in reports.
std::string_view status_name(Status status);
std::optional<Status> parse_status(std::string_view name);

/// Does this status make `opcert run` exit 1?
bool status_fails_run(Status status);

}  // namespace opcert
