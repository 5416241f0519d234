// The table `opcert run` prints at the end: counts per backend and op, aligned for a terminal.
#pragma once

#include <string>

#include "reports/run_report.h"

namespace opcert {

/// Plain text, one row per (backend, op) plus an "all ops" row per backend with several ops,
/// columns aligned, ending in a newline. With `color`, non-zero counts get ANSI colours (green
/// passed; red failed, error, crashed, timeout; yellow mistrusted, skipped); alignment is kept.
/// Then, when the report has a plan, one coverage line per backend (reports/coverage.h): the
/// pairs of the plan it ran, those it did not and why, its skips grouped by class.
std::string console_summary_table(const RunReport& report, bool color = false);

}  // namespace opcert
