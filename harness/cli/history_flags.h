// `--history DB` on run and bench: the finished run goes into the results store as
// `opcert history add` would put it there (docs/HISTORY.md), so CI keeps its history in one step.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>

#include "loader/platform/platform_config.h"

namespace opcert {

struct HistoryFlags {
  std::string db;              ///< --history: a SQLite file or a postgresql:// URL; "" for none
  std::string project_commit;  ///< --project-commit: the commit of the project under test
};

/// The store's flag of run and bench; `--project-commit` as `opcert history add` has it.
void add_history_flags(CLI::App& verb, HistoryFlags& flags);

/// The store `--db` names when neither it nor $OPCERT_HISTORY_DB is given.
inline constexpr const char* kDefaultHistoryStore = "opcert-history.db";

/// `--db FILE|URL` of `opcert history` and `opcert dashboard` (also $OPCERT_HISTORY_DB).
void add_db_option(CLI::App& verb, std::string& db);

/// `--project-commit` alone (add_history_flags adds it too).
void add_project_commit_flag(CLI::App& verb, std::string& project_commit);

/// Before the run: opens the store (creating a SQLite file, migrating an old schema), so that a
/// bad --history is exit 2 before anything is measured. Nothing when --history is not given.
void check_history_flags(const HistoryFlags& flags);

/// After the run: adds the report in `out_dir` to the store and prints one line saying so. A
/// failure is one line on stderr saying the run's files are kept and how to add them later, and
/// returns kExitBadInput; otherwise kExitOk.
int add_run_to_history(const HistoryFlags& flags, const std::filesystem::path& out_dir,
                       const PlatformCatalog& platforms);

/// The command's exit code with the history's: a failure already there stands.
inline void keep_worse(int& exit_code, int history_code) {
  if (exit_code == 0) exit_code = history_code;
}

}  // namespace opcert
