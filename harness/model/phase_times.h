// Where the time of one job went, in seconds: the phases of a case in the worker, the worker's
// whole time on the job, and what the runner spent around it. For profiling only (`opcert run
// --profile`, docs/PERFORMANCE.md "Harness"): no verdict reads it, and nothing that compares runs
// (compare, certify's reruns, golden sets, ci/compare_verdicts.py) treats it as content.
#pragma once

#include <chrono>

namespace opcert {

struct PhaseTimes {
  double generate = 0.0;   ///< the inputs filled (check/fill.cpp)
  double copy = 0.0;       ///< device buffers: allocated, filled from the host, read back, guards checked
  double launch = 0.0;     ///< the backend's call, its publish_outputs and the wait for the device
  double reference = 0.0;  ///< the golden reference (computed, or read from a golden set)
  double check = 0.0;      ///< tolerances, comparison and verdict
  /// The worker's whole time on the job, from reading the job to answering it: the phases above,
  /// and what lies outside them (query_op, memory admission, encoding). Collectives: the step's.
  double worker = 0.0;
  double startup = 0.0;    ///< runner: starting a worker for this job (0 when one was running)
  double ipc = 0.0;        ///< runner: from sending the job to reading the answer, less `worker`

  /// generate + copy + launch + reference + check: never more than `worker`.
  double phase_sum() const { return generate + copy + launch + reference + check; }
};

/// Adds the steady-clock time from its construction to its destruction to `seconds`, also when
/// the scope is left by an exception.
class PhaseTimer {
 public:
  explicit PhaseTimer(double& seconds) : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() { seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  double& seconds_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace opcert
