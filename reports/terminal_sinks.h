// The sinks a person at a terminal reads during and after `opcert run`: the progress display on
// stderr (a bar on a terminal, plain lines otherwise; reports/progress.h) and, at the end, the
// backend x op summary table and where the results are, on stdout.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>

#include "reports/progress.h"
#include "reports/result_sink.h"

namespace opcert {

/// Progress over `total` jobs on stderr: each started and finished case, every note.
std::unique_ptr<ResultSink> make_progress_sink(ProgressMode mode, std::size_t total);

/// At the end, on stdout: console_summary_table (coloured on a terminal, never under an MPI
/// launcher, which hands ranks a pseudo-terminal even when its own output is a file), then
/// "N result(s) in <out_dir>" (with the rank count for collectives, and whether it was complete).
std::unique_ptr<ResultSink> make_summary_table_sink(std::filesystem::path out_dir);

/// At the end, on stdout (`--profile`): profile_text (reports/phase_profile.h), where each
/// backend's job time went, phase by phase.
std::unique_ptr<ResultSink> make_profile_sink();

}  // namespace opcert
