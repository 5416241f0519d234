// The table `opcert run` prints at the end: counts per backend and op, aligned for a terminal.
#pragma once

#include <string>

#include "reports/run_report.h"

namespace opcert {

/// Plain text, one row per (backend, op) plus an "all ops" row per backend with several ops,
/// columns aligned, ending in a newline. With `color`, non-zero counts get ANSI colours (green
/// passed; red failed, error, crashed, timeout; yellow mistrusted, skipped); alignment is kept.
std::string console_summary_table(const RunReport& report, bool color = false);

}  // namespace opcert
