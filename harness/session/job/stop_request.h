// SIGINT and SIGTERM during a run or a bench ask it to stop: the runner ends its workers, writes
// the reports it has (complete=false) and exits 130. The handlers only set a flag.
#pragma once

#include <string>

namespace opcert {

/// Installs the SIGINT/SIGTERM handlers (without SA_RESTART, so waits wake up) and ignores
/// SIGPIPE, so writing to a dead worker is an error code, not the runner's death.
void install_stop_handlers();

/// Restores the previous SIGINT/SIGTERM/SIGPIPE dispositions.
void remove_stop_handlers();

bool stop_requested();
/// The signal that asked to stop, 0 if none.
int stop_signal();
/// "SIGINT" or "SIGTERM": the signal that asked to stop, as the stop note names it; "interrupted"
/// when none did.
std::string stop_signal_name();

/// For tests: clears the request.
void reset_stop_request();

}  // namespace opcert
