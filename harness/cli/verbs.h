// Each verb adds its subcommand to the app; its callback stores the process exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

namespace opcert {

/// Every verb below, --version, and the app's rules (exactly one verb): the whole command line.
void add_all_verbs(CLI::App& app, int& exit_code);

void add_list_verb(CLI::App& app, int& exit_code);
void add_run_verb(CLI::App& app, int& exit_code);
void add_bench_verb(CLI::App& app, int& exit_code);
void add_compare_verb(CLI::App& app, int& exit_code);
void add_certify_verb(CLI::App& app, int& exit_code);
void add_verify_verb(CLI::App& app, int& exit_code);
void add_golden_verb(CLI::App& app, int& exit_code);
void add_history_verb(CLI::App& app, int& exit_code);
void add_dashboard_verb(CLI::App& app, int& exit_code);
void add_selftest_verb(CLI::App& app, int& exit_code);
void add_version_verb(CLI::App& app, int& exit_code);
void add_worker_verb(CLI::App& app, int& exit_code);  // hidden; started by `run`

}  // namespace opcert
