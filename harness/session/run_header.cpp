#include "session/run_header.h"

#include "session/run_paths.h"

namespace opcert {

std::string now_utc() { return iso_utc(std::chrono::system_clock::now()); }

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
  report.started_at = now_utc();
  for (const auto& t : targets) report.backends.push_back(backend_record(t));
  return report;
}

}  // namespace opcert
