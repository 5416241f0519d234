#include "cli/history_flags.h"

#include <fmt/format.h>

#include <cstdio>

#include "history/history_store.h"
#include "model/exit_codes.h"

namespace opcert {

void add_project_commit_flag(CLI::App& verb, std::string& project_commit) {
  verb.add_option("--project-commit", project_commit,
                  "The commit of the project under test, kept with the run in the history (the dashboard labels the "
                  "run with it)")
      ->envname("OPCERT_PROJECT_COMMIT")
      ->type_name("SHA");
}

void add_db_option(CLI::App& verb, std::string& db) {
  verb.add_option("--db", db,
                  fmt::format("The results store: a SQLite file, or a postgresql:// URL (default: $OPCERT_HISTORY_DB, "
                              "else {})",
                              kDefaultHistoryStore))
      ->envname("OPCERT_HISTORY_DB")
      ->type_name("FILE|URL");
}

void add_history_flags(CLI::App& verb, HistoryFlags& flags) {
  verb.add_option("--history", flags.db,
                  "When the run ends, add it to this results store: a SQLite file (created if missing) or a "
                  "postgresql:// URL (docs/HISTORY.md)")
      ->type_name("DB");
  add_project_commit_flag(verb, flags.project_commit);
}

void check_history_flags(const HistoryFlags& flags) {
  if (!flags.db.empty()) (void)HistoryStore::open(flags.db, /*create=*/true);
}

int add_run_to_history(const HistoryFlags& flags, const std::filesystem::path& out_dir,
                       const PlatformCatalog& platforms) {
  if (flags.db.empty()) return kExitOk;
  try {
    auto store = HistoryStore::open(flags.db, /*create=*/true);
    const AddResult added = store->add(out_dir, flags.project_commit, platforms);
    std::fprintf(stderr, "opcert: history: run %lld %s in %s\n", static_cast<long long>(added.id),
                 outcome_name(added.outcome).c_str(), redacted_location(flags.db).c_str());
    return kExitOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "opcert: error: --history: %s; the run's files are kept in %s: add them later with `opcert history "
                 "add %s --db DB`\n",
                 e.what(), out_dir.string().c_str(), out_dir.string().c_str());
    return kExitBadInput;
  }
}

}  // namespace opcert
