#include "reports/coverage.h"

#include <algorithm>

#include <fmt/format.h>

namespace opcert {

int64_t BackendCoverage::covered() const {
  return std::count_if(pairs.begin(), pairs.end(), [](const PairCoverage& p) { return p.missing.empty(); });
}

std::vector<PairCoverage> BackendCoverage::missing() const {
  std::vector<PairCoverage> out;
  std::copy_if(pairs.begin(), pairs.end(), std::back_inserter(out), [](const PairCoverage& p) { return !p.missing.empty(); });
  return out;
}

std::vector<BackendCoverage> coverage_of(const RunReport& report) {
  std::vector<BackendCoverage> all;
  if (report.plan.empty()) return all;
  for (const auto& b : report.backends) {
    BackendCoverage c{b.name, b.peer, {}, {}};
    for (const auto& planned : report.plan) {
      PairCoverage pair{planned.op, planned.dtype, planned.cases, 0, ""};
      std::vector<std::string> skip_classes;
      for (const auto& r : report.results) {
        if (r.backend != b.name || r.op != planned.op || r.dtype != planned.dtype) continue;
        if (r.status != Status::kSkipped)
          ++pair.ran;
        else if (std::find(skip_classes.begin(), skip_classes.end(), r.skip_reason) == skip_classes.end())
          skip_classes.push_back(r.skip_reason);
      }
      const bool implemented = std::find(b.ops.begin(), b.ops.end(), planned.op) != b.ops.end();
      if (!implemented)
        pair.missing = skip_reason::kNotImplemented;
      else if (pair.ran == 0)
        pair.missing = skip_classes.empty() ? "not run" : skip_classes.size() > 1 ? "mixed" : skip_classes.front();
      c.pairs.push_back(pair);
    }
    for (const auto& r : report.results)
      if (r.backend == b.name && r.status == Status::kSkipped) ++c.skipped[r.skip_reason];
    all.push_back(std::move(c));
  }
  return all;
}

std::string pair_name(const std::string& op, const std::string& dtype) {
  return dtype.empty() ? op : op + " " + dtype;
}

std::string skip_groups_text(const std::map<std::string, int64_t>& skipped) {
  std::string text;
  for (const auto& [reason, n] : skipped)
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", n, skip_reason::phrase(reason));
  return text;
}

std::string missing_pairs_text(const std::vector<PairCoverage>& missing) {
  std::string text;
  for (const auto& p : missing) {
    const std::string why = p.missing == "mixed" ? "every case skipped" : std::string(skip_reason::phrase(p.missing));
    text += fmt::format("{}{} ({})", text.empty() ? "" : ", ", pair_name(p.op, p.dtype), why);
  }
  return text;
}

}  // namespace opcert
