#include "session/job/run_header.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "session/job/run_paths.h"
#include "session/planning/job_list.h"

namespace opcert {

std::string new_run_id() {
  std::random_device entropy;  // the kernel's generator: two runs started in one second still differ
  std::string id;
  for (int i = 0; i < 4; ++i) id += fmt::format("{:08x}", static_cast<uint32_t>(entropy()));
  return id;
}

RunReport run_header(const std::string& kind, const std::vector<RunTarget>& targets, const Suite& suite,
                     const SessionSettings& s) {
  RunReport report;
  report.kind = kind;
  report.opcert_version = s.environment.opcert_version;
  report.command_line = s.command_line;
  report.suite = suite.name;
  report.suite_path = suite.path;
  report.suite_sha256 = suite.sha256;
  report.seed = s.seed;
  report.platform = s.platform;
  report.peer = s.peer;
  report.run_id = new_run_id();
  report.started_at = now_utc();
  for (const auto& t : targets) report.backends.push_back(backend_record(t));
  report.plan = planned_pairs(suite.cases, filter_cases(suite.cases, s.filter));
  return report;
}

std::vector<PlannedPair> planned_pairs(const std::vector<Case>& cases, const std::vector<std::size_t>& selected) {
  std::vector<PlannedPair> plan;
  for (const std::size_t i : selected) {
    const Case& c = cases.at(i);
    auto it = std::find_if(plan.begin(), plan.end(), [&](const PlannedPair& p) { return p.op == c.op && p.dtype == c.dtype; });
    if (it == plan.end()) it = plan.insert(plan.end(), PlannedPair{c.op, c.dtype, 0});
    ++it->cases;
  }
  return plan;
}

}  // namespace opcert
