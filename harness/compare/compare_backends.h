// Two backends (or two implementation keys, or two devices) of one run side by side (`opcert compare
// RUN --backends A,B`, `--impl KEY_A,KEY_B` or `--devices 0,1`): per case their statuses, alignment
// and times, per op and dtype the geometric mean of the time ratios. "Which backend is better here."
#pragma once

#include <string>

#include "compare/comparison.h"
#include "reports/run_report.h"

namespace opcert {

/// What the two sides are.
enum class SideBy {
  kBackend,  ///< backend names; a backend's side on a case is its fastest benchmarked implementation, else its first result
  kImpl,     ///< implementation keys
  kDevice,   ///< device indices of a run with --devices: each implementation's result on each device, paired by
             ///< (backend, implementation, case); results only, a benchmark names no device
};

/// `a` and `b` name backends, implementation keys or device indices, as `by` says. Throws
/// InputError when either has no result in the run (naming the ones it has).
Comparison compare_backends(const RunReport& run, const std::string& run_label, const std::string& a,
                            const std::string& b, SideBy by);

}  // namespace opcert
