#include "cli/verbs.h"

#include <fmt/format.h>

#include "cli/build_info.h"

namespace opcert {

void add_all_verbs(CLI::App& app, int& exit_code) {
  app.require_subcommand(1);
  app.fallthrough(false);
  app.set_version_flag("--version", [] {
    const BuildInfo& b = build_info();
    return fmt::format("opcert {} (commit {})", b.version, b.git_commit);
  });
  add_list_verb(app, exit_code);
  add_run_verb(app, exit_code);
  add_bench_verb(app, exit_code);
  add_compare_verb(app, exit_code);
  add_certify_verb(app, exit_code);
  add_verify_verb(app, exit_code);
  add_golden_verb(app, exit_code);
  add_history_verb(app, exit_code);
  add_dashboard_verb(app, exit_code);
  add_selftest_verb(app, exit_code);
  add_version_verb(app, exit_code);
  add_worker_verb(app, exit_code);
}

}  // namespace opcert
