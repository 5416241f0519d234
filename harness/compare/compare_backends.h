// Two backends (or two implementation keys) of one run side by side (`opcert compare RUN
// --backends A,B` or `--impl KEY_A,KEY_B`): per case their statuses, alignment and times, per op
// and dtype the geometric mean of the time ratios. "Which backend is better here."
#pragma once

#include <string>

#include "compare/comparison.h"
#include "reports/run_report.h"

namespace opcert {

/// `a` and `b` name backends, or implementation keys when `by_impl`; a backend's side on a case
/// is its fastest benchmarked implementation, else its first result. Throws InputError when either
/// has no result in the run (naming the ones it has).
Comparison compare_backends(const RunReport& run, const std::string& run_label, const std::string& a,
                            const std::string& b, bool by_impl);

}  // namespace opcert
