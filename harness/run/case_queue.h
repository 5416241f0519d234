// The jobs that some lanes of a run share (run/worker_lanes.h), handed out a case at a time: one
// worker takes all of a case's implementations, so that it generates the case's inputs and
// computes its reference once for all of them (session/execution/case_memo.h). With more than one
// lane on the queue the costliest cases go first, so that the run does not end waiting on one big
// case that started last; the report puts the results back in the suite's order.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "check/suite.h"
#include "session/planning/job_list.h"

namespace opcert {

/// One case's jobs and what holding it costs, in bytes (session/execution/memory_admission.h).
struct CaseGroup {
  std::vector<std::size_t> jobs;  // indices into the run's jobs, in job order
  std::size_t case_index = 0;
  uint64_t host_bytes = 0;        // the footprint on the host (with the device's where it is host memory)
  uint64_t device_bytes = 0;      // on the device (0 where the device is host memory)
};

/// A case's footprint as a group holds it; a case whose footprint does not fit 64 bits costs the
/// most (its worker refuses it, ERROR, as alone).
CaseGroup case_group(const Case& c, std::size_t case_index, bool device_is_host);

class CaseQueue {
 public:
  /// The groups of `todo` (indices into `jobs`, consecutive jobs of one case form one group), in
  /// todo order, or costliest first (by host bytes, ties in todo order) when `costliest_first`.
  CaseQueue(const std::vector<Job>& jobs, const std::vector<std::size_t>& todo, const Suite& suite, bool device_is_host,
            bool costliest_first);
  CaseQueue(const CaseQueue&) = delete;
  CaseQueue& operator=(const CaseQueue&) = delete;

  /// The next group not yet taken, or null when none is left. Safe from many threads.
  const CaseGroup* next();

  std::size_t size() const { return groups_.size(); }
  /// Group `i` in the order they are handed out (not safe beside next()'s callers: before them).
  const CaseGroup& at(std::size_t i) const { return groups_.at(i); }

 private:
  std::vector<CaseGroup> groups_;
  std::atomic<std::size_t> head_{0};
};

}  // namespace opcert
