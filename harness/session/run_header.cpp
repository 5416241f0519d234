#include "session/run_header.h"

#include <fmt/format.h>

#include <random>

#include "session/run_paths.h"

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
  return report;
}

}  // namespace opcert
