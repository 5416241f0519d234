#include "reports/run_summary.h"

#include <algorithm>

#include "reports/number_format.h"

namespace opcert {
namespace {

size_t index_of(Status status) {
  const auto it = std::find(kAllStatuses.begin(), kAllStatuses.end(), status);
  return static_cast<size_t>(it - kAllStatuses.begin());
}

template <typename T, typename Key>
T& find_or_add(std::vector<T>& items, std::string T::*key_member, const Key& key) {
  for (auto& item : items)
    if (item.*key_member == key) return item;
  items.emplace_back();
  items.back().*key_member = key;
  return items.back();
}

BackendSummary& entry_for(std::vector<BackendSummary>& summaries, const std::string& backend, const std::string& device) {
  for (auto& s : summaries)
    if (s.backend == backend && s.device == device) return s;
  summaries.emplace_back();
  summaries.back().backend = backend;
  summaries.back().device = device;
  return summaries.back();
}

}  // namespace

void StatusCounts::add(Status status) {
  ++by_status[index_of(status)];
  ++total;
}

int64_t StatusCounts::of(Status status) const { return by_status[index_of(status)]; }

int64_t StatusCounts::failures() const { return of(Status::kFailed) + of(Status::kMistrusted); }

int64_t StatusCounts::errors() const {
  return of(Status::kError) + of(Status::kCrashed) + of(Status::kTimeout);
}

std::vector<BackendSummary> summarize_results(const RunReport& report, bool per_device) {
  const auto label_of = [&](const CaseResult& r) { return per_device ? device_label(r.device, r.rank) : std::string(); };
  std::vector<BackendSummary> summaries;
  for (const auto& record : report.backends) {
    // Per device, a backend's entries are its devices' (in order of appearance), else one untagged.
    bool any = false;
    for (const auto& result : report.results)
      if (result.backend == record.name) {
        entry_for(summaries, record.name, label_of(result)).peer |= record.peer;
        any = true;
      }
    if (!any) entry_for(summaries, record.name, "").peer |= record.peer;
  }
  for (const auto& result : report.results) {
    auto& backend = entry_for(summaries, result.backend, label_of(result));
    auto& op = find_or_add(backend.ops, &OpSummary::op, result.op);
    backend.counts.add(result.status);
    op.counts.add(result.status);
    backend.worst_alignment_ratio = worse_of(backend.worst_alignment_ratio, result.alignment_ratio);
    op.worst_alignment_ratio = worse_of(op.worst_alignment_ratio, result.alignment_ratio);
  }
  return summaries;
}

std::string summary_name(const BackendSummary& summary) {
  std::string name = summary.peer ? summary.backend + " (peer)" : summary.backend;
  return summary.device.empty() ? name : name + " [" + summary.device + "]";
}

StatusCounts count_all(const RunReport& report) {
  StatusCounts counts;
  for (const auto& result : report.results) counts.add(result.status);
  return counts;
}

}  // namespace opcert
