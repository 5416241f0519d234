// The CLI's exit-code contract (docs/CLI.md). Scripts and CI systems depend on these values.
#pragma once

namespace opcert {

enum ExitCode : int {
  kExitOk = 0,           // everything ran and passed
  kExitCheckFailed = 1,  // a case failed, crashed or timed out; a gate was not met
  kExitBadInput = 2,     // bad usage, a bad input file or environment value
  kExitNoBackend = 3,    // no usable backend matched the selection
  kExitInterrupted = 130,  // stopped by SIGINT/SIGTERM; what finished is in the reports (128 + SIGINT)
};

}  // namespace opcert
