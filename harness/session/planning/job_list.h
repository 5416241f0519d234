// Which (backend, implementation, case) triples a run executes, in the order it executes them.
// Pure functions of the suite, the backends' implementation lists and the selections, so the
// plan can be tested without starting anything.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "check/suite.h"
#include "loader/backend_handle.h"
#include "model/case.h"

namespace opcert {

/// A backend as the runner plans it: its name, its implementations, and whether it only takes
/// part as the alignment peer (results recorded, never gating the exit code).
struct BackendPlan {
  std::string name;
  std::vector<ImplementationInfo> implementations;
  bool peer = false;
};

struct Job {
  std::size_t backend_index = 0;  // into the plans given to build_jobs
  std::string backend;
  std::string impl_key;
  std::size_t case_index = 0;     // into the suite's cases
  bool peer = false;
  bool operator==(const Job&) const = default;
};

/// Indices of the cases whose id matches `regex` (ECMAScript, searched anywhere in the id;
/// empty matches every case). Throws InputError "--filter '<re>': ..." for a bad expression.
std::vector<std::size_t> filter_cases(const std::vector<Case>& cases, const std::string& regex);

/// Backends in the given order; within one, the selected cases in suite order; within a case,
/// every implementation of the case's op whose key matches `impl_selection` (globs as for
/// --backend, e.g. "cpu.gemm.*,!*.naive"; empty selects all), in the backend's order.
/// A peer ignores `impl_selection` (alignment needs its native result whatever is tested) but
/// runs only the cases that some non-peer job runs.
std::vector<Job> build_jobs(const std::vector<BackendPlan>& backends, const std::vector<Case>& cases,
                            const std::vector<std::size_t>& selected_cases, const std::string& impl_selection);

/// build_jobs over the cases `filter` selects, with the selections checked first: InputError for a
/// filter that selects no case, a suite without cases, or an --impl that matches no implementation
/// of a non-peer backend; NoBackendError (exit 3) when no non-peer job remains.
std::vector<Job> plan_checked_jobs(const std::vector<BackendPlan>& backends, const Suite& suite,
                                   const std::string& filter, const std::string& impl_selection);

/// Implementation keys of the plans that match `impl_selection`, for "matches nothing" messages.
std::vector<std::string> matching_implementations(const std::vector<BackendPlan>& backends,
                                                  const std::string& impl_selection);

}  // namespace opcert
