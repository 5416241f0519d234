// One row of `opcert bench` on collectives: an implementation on a suite case at one size of the
// sweep, and what rank 0 gathered from every rank about it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/bench_record.h"
#include "model/case.h"
#include "model/case_result.h"
#include "opkit/collective.h"

namespace opcert {

struct CollectiveBenchJob {
  std::size_t backend_index = 0;
  std::string backend;
  std::string impl_key;
  bool peer = false;            ///< the peer's collective, the yardstick: never gating
  std::size_t case_index = 0;   ///< the suite case this size of the sweep comes from
  Case sized;                   ///< the case at this size (x is [count])
  CollectiveSpec spec;
  uint64_t bytes = 0;           ///< the size as nccl-tests means it (collective_sweep.h)
  std::string name;             ///< "<case id>/<impl key>"; the case id ends in ".bytes<N>"

  // Rank 0's outcome.
  std::vector<std::optional<CaseResult>> checks;  ///< per rank: the one checked run (or why none)
  std::vector<std::optional<double>> seconds;     ///< per rank: mean seconds per collective
  std::string timing_method;                      ///< "events" or "wall"

  /// The row's status: the first rank's that is not PASSED (TIMEOUT, ERROR, FAILED before
  /// SKIPPED), else PASSED; ERROR when a rank gave nothing.
  Status status() const;
  /// The message of the rank that gave status().
  std::string message() const;
  /// Seconds per collective: the mean over the ranks (nccl-tests' default), when every rank timed.
  std::optional<double> mean_seconds() const;
  /// bytes / time and that times bus_factor, in GB/s (1e9 bytes).
  std::optional<double> algbw_gbps() const;
  std::optional<double> busbw_gbps(int ranks) const;
};

/// The best busbw of the peer rows on the same case and size that PASSED, and ours over it.
std::optional<double> peer_busbw_gbps(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks);
std::optional<double> ratio_vs_peer(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks);

/// True for a row status that fails a selected backend's row (FAILED, ERROR, TIMEOUT, CRASHED).
bool collective_row_gates(Status s);

/// The row's record as the result stream carries it, `iters` and `warmup` being the sweep's.
BenchRecord bench_record(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks, int iters,
                         int warmup);

}  // namespace opcert
