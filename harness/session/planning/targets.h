// The backends a session runs on: each selected one, and the peer (a role: the backend named by
// --peer, whose results are the alignment and speed yardstick and never gate the exit code).
#pragma once

#include <vector>

#include "loader/backend_handle.h"
#include "reports/run_report.h"
#include "session/planning/job_list.h"

namespace opcert {

struct RunTarget {
  BackendHandle* backend = nullptr;
  bool peer = false;  // taking part only as the peer (not selected itself)
};

/// What the job planner needs of each target: its name, implementations and whether it is the peer.
std::vector<BackendPlan> backend_plans(const std::vector<RunTarget>& targets);

/// The provenance of a target as reports record it (name, version, library and its sha256).
BackendRecord backend_record(const RunTarget& target);

}  // namespace opcert
