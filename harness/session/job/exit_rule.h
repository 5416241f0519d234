// The one exit-code rule of the verbs that run cases, `opcert run` and `opcert bench`
// (docs/CLI.md, "Exit codes"): a backend taking part only as the peer never fails a session.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/case_result.h"
#include "session/planning/targets.h"

namespace opcert {

/// The names of the targets that take part only as the peer.
std::set<std::string> peer_only_backends(const std::vector<RunTarget>& targets);

/// kExitInterrupted when `interrupted`; else kExitCheckFailed when a result of a backend not in
/// `peer_only` fails the run (model/status.h, status_fails_run) or `other_failure` (run: a rank
/// was lost; bench: a selected backend's timing failed); else kExitOk.
int session_exit_code(const std::vector<CaseResult>& results, const std::set<std::string>& peer_only, bool interrupted,
                      bool other_failure);

}  // namespace opcert
