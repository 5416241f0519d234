// The report header a session starts with (its RunReport before any result): what both verbs
// record about a run before it measures anything.
#pragma once

#include <string>
#include <vector>

#include "check/suite.h"
#include "reports/run_report.h"
#include "session/planning/session_settings.h"
#include "session/planning/targets.h"
#include "model/utc_time.h"

namespace opcert {

/// 32 random hex digits: a run's id (RunReport::run_id).
std::string new_run_id();

/// The (op, dtype) pairs of the `selected` cases (indices into `cases`), in order of first appearance,
/// each with its count of cases.
std::vector<PlannedPair> planned_pairs(const std::vector<Case>& cases, const std::vector<std::size_t>& selected);

/// kind, opcert version, command line, suite (name, path, sha256), seed, platform, peer, a new
/// run id, the start time (now), every target's provenance and the plan's (op, dtype) pairs (the
/// cases --filter selects; an invalid filter throws InputError as the planning does).
RunReport run_header(const std::string& kind, const std::vector<RunTarget>& targets, const Suite& suite,
                     const SessionSettings& settings);

}  // namespace opcert
