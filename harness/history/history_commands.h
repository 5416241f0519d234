// What each `opcert history` subcommand does with an open store and prints (docs/HISTORY.md); the
// cli parses the flags, opens the store and calls one of these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/history_store.h"

namespace opcert {

/// `add`: adds each run and prints "run <id> <added|unchanged|replaced>: <run>".
void add_runs(HistoryStore& store, const std::vector<std::string>& runs, const std::string& project_commit,
              const PlatformCatalog& platforms);
/// `list`: the runs matching `filter`, as a table or (json) an array.
void print_runs(HistoryStore& store, const RunFilter& filter, bool json);
/// `show`: one run's details, as text or JSON; InputError when the store has no such run.
void print_run(HistoryStore& store, int64_t id, bool json);
/// `remove`: every id checked first (InputError for one the store lacks), then each removed once.
void remove_runs(HistoryStore& store, std::vector<int64_t> ids);
/// `export`: the export document (all runs, or those of `ids`) on stdout, or written atomically to
/// `out`; InputError when `out` cannot be written.
void export_runs(HistoryStore& store, const std::vector<int64_t>& ids, const std::string& out);

}  // namespace opcert
