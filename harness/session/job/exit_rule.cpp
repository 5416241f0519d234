#include "session/job/exit_rule.h"

#include <algorithm>

#include "model/exit_codes.h"

namespace opcert {

std::set<std::string> peer_only_backends(const std::vector<RunTarget>& targets) {
  std::set<std::string> names;
  for (const RunTarget& t : targets)
    if (t.peer) names.insert(t.backend->name());
  return names;
}

int session_exit_code(const std::vector<CaseResult>& results, const std::set<std::string>& peer_only, bool interrupted,
                      bool other_failure) {
  if (interrupted) return kExitInterrupted;
  const bool failed = std::any_of(results.begin(), results.end(), [&](const CaseResult& r) {
    return !peer_only.contains(r.backend) && status_fails_run(r.status);
  });
  return failed || other_failure ? kExitCheckFailed : kExitOk;
}

}  // namespace opcert
