// report.json read back into the result model, for the verbs that judge runs after the fact
// (`opcert compare`, `--baseline`): the same RunReport the writers were given, as far as the file
// holds it (the summary is recomputed, never read).
#pragma once

#include <filesystem>

#include "reports/run_report.h"

namespace opcert {

/// The report at `path`: a report.json, or a run's output directory holding one. Throws InputError
/// (exit 2) naming the path, and the field where it is one, when the file is missing, is not JSON,
/// is not an opcert report, or has a schema major this build does not read.
RunReport read_run_report(const std::filesystem::path& path);

}  // namespace opcert
