// Coverage (docs/CLI.md, "Coverage"): for each backend of a run, which (op, dtype) pairs of the
// plan it ran, which it has no implementation of, and which it skipped entirely and why; and its
// skips grouped by their class (model/skip_reason.h). Computed from the report alone, so that
// report.json, summary.md, the summary table and a certificate say the same.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reports/run_report.h"

namespace opcert {

/// One (op, dtype) pair of the plan as one backend met it.
struct PairCoverage {
  std::string op;
  std::string dtype;
  int64_t cases = 0;  ///< of the plan
  int64_t ran = 0;    ///< results with a status other than SKIPPED
  /// "" when it ran at least one case; else why not: skip_reason::kNotImplemented, the skip class
  /// of its results when they share one, "mixed" when they differ, "not run" without results
  /// (an --impl that selected none of its implementations, an interrupted run).
  std::string missing;
};

struct BackendCoverage {
  std::string backend;
  bool peer = false;
  std::vector<PairCoverage> pairs;          ///< the plan's pairs, in its order
  std::map<std::string, int64_t> skipped;   ///< SKIPPED results per skip class ("" unclassified)

  int64_t covered() const;                  ///< pairs with at least one case run
  std::vector<PairCoverage> missing() const;  ///< the others, in plan order
};

/// One entry per backend of report.backends, in order; none when the report has no plan (a report
/// before schema 2.7, or a run of collectives).
std::vector<BackendCoverage> coverage_of(const RunReport& report);

/// "gemm fp16", the way tables name a pair.
std::string pair_name(const std::string& op, const std::string& dtype);

/// "3 declined by the backend, 1 too big for memory"; "" for none.
std::string skip_groups_text(const std::map<std::string, int64_t>& skipped);

/// "gemm fp16 (no implementation), softmax fp32 (declined by the backend)"; "" for none.
std::string missing_pairs_text(const std::vector<PairCoverage>& missing);

}  // namespace opcert
