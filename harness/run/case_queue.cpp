#include "run/case_queue.h"

#include <algorithm>
#include <limits>

#include "model/checked_size.h"
#include "session/execution/memory_admission.h"

namespace opcert {

CaseGroup case_group(const Case& c, std::size_t case_index, bool device_is_host) {
  CaseGroup g;
  g.case_index = case_index;
  try {
    const Footprint f = case_footprint(c);
    g.host_bytes = f.host(device_is_host);
    g.device_bytes = device_is_host ? 0 : f.device();
  } catch (const SizeError&) {
    g.host_bytes = std::numeric_limits<uint64_t>::max();
    g.device_bytes = device_is_host ? 0 : std::numeric_limits<uint64_t>::max();
  }
  return g;
}

CaseQueue::CaseQueue(const std::vector<Job>& jobs, const std::vector<std::size_t>& todo, const Suite& suite,
                     bool device_is_host, bool costliest_first) {
  for (const std::size_t j : todo) {
    const std::size_t case_index = jobs[j].case_index;
    if (groups_.empty() || groups_.back().case_index != case_index)
      groups_.push_back(case_group(suite.cases[case_index], case_index, device_is_host));
    groups_.back().jobs.push_back(j);
  }
  if (costliest_first)
    std::stable_sort(groups_.begin(), groups_.end(),
                     [](const CaseGroup& a, const CaseGroup& b) { return a.host_bytes > b.host_bytes; });
}

const CaseGroup* CaseQueue::next() {
  const std::size_t position = head_++;
  return position < groups_.size() ? &groups_[position] : nullptr;
}

}  // namespace opcert
