#include "run/shared_inputs.h"

#include <algorithm>
#include <set>

namespace opcert {

namespace {

// Nothing to share unless two targets or more run the same cases.
uint64_t shared_bytes(const std::vector<Lane>& lanes, uint64_t host_available) {
  std::set<std::size_t> targets;
  for (const Lane& lane : lanes) targets.insert(lane.target);
  return targets.size() < 2 ? 0 : host_available;
}

}  // namespace

SharedInputs::SharedInputs(const std::vector<Lane>& lanes, uint64_t host_available)
    : folder_(shared_bytes(lanes, host_available)) {}

void SharedInputs::expect(const CaseGroup& g) {
  const std::lock_guard lock(mutex_);
  jobs_left_[g.case_index] += g.jobs.size();
}

void SharedInputs::done(const CaseGroup& g, const Suite& suite) {
  if (folder_.cache().dir.empty()) return;
  const std::lock_guard lock(mutex_);
  std::size_t& left = jobs_left_[g.case_index];
  left -= std::min(left, g.jobs.size());
  if (left > 0) return;
  folder_.forget(suite.cases[g.case_index].id);
}

}  // namespace opcert
