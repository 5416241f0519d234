// Counts per status for each backend and each (backend, op), with the worst alignment ratio: the
// figures every report's summary shows, computed once here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/status.h"
#include "reports/run_report.h"

namespace opcert {

/// Every status, in the order reports list them.
inline constexpr std::array<Status, 7> kAllStatuses{Status::kPassed,  Status::kFailed, Status::kMistrusted,
                                                    Status::kSkipped, Status::kError,  Status::kCrashed,
                                                    Status::kTimeout};

struct StatusCounts {
  std::array<int64_t, kAllStatuses.size()> by_status{};
  int64_t total = 0;

  void add(Status status);
  int64_t of(Status status) const;
  int64_t failures() const;  // FAILED + MISTRUSTED: the checks a backend did not pass
  int64_t errors() const;    // ERROR + CRASHED + TIMEOUT: the cases that did not finish
};

struct OpSummary {
  std::string op;
  StatusCounts counts;
  std::optional<double> worst_alignment_ratio;  // the largest (NaN worst) over the op's cases
};

struct BackendSummary {
  std::string backend;
  std::string device;  // per device only: device_label of its results ("device 1"), "" for untagged ones
  bool peer = false;
  StatusCounts counts;
  std::optional<double> worst_alignment_ratio;
  std::vector<OpSummary> ops;  // in the order the ops first appear in the results
};

/// One entry per backend: those of report.backends in their order (even without results), then
/// any backend only the results name. `per_device`: one entry per device of a backend instead,
/// in the order its devices first appear (a run with --devices), untagged results in one of their own.
std::vector<BackendSummary> summarize_results(const RunReport& report, bool per_device = false);

/// How tables name an entry: "cpu", "torch (peer)", "cpu [device 1]", "cpu [rank 1 device 0]".
std::string summary_name(const BackendSummary& summary);

/// Counts over every result of the run.
StatusCounts count_all(const RunReport& report);

}  // namespace opcert
