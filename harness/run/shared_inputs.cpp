#include "run/shared_inputs.h"

#include <set>

namespace opcert {

SharedInputs::SharedInputs(const std::vector<Lane>& lanes, uint64_t host_available) {
  std::set<std::size_t> targets;
  for (const Lane& lane : lanes) targets.insert(lane.target);
  folder_ = std::make_unique<InputCacheFolder>(targets.size() < 2 ? 0 : host_available);
}

void SharedInputs::expect(const CaseGroup& g) {
  const std::lock_guard lock(mutex_);
  jobs_left_[g.case_index] += g.jobs.size();
}

void SharedInputs::done(const CaseGroup& g, const Suite& suite) {
  if (folder_->cache().dir.empty()) return;
  const std::lock_guard lock(mutex_);
  std::size_t& left = jobs_left_[g.case_index];
  left -= std::min(left, g.jobs.size());
  if (left > 0) return;
  folder_->forget(suite.cases[g.case_index].id);
}

}  // namespace opcert
