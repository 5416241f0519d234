#include "history/history_commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "history/run_listing.h"
#include "model/input_error.h"
#include "reports/report_writer.h"

namespace opcert {
namespace {

void print_json(const nlohmann::json& doc) { std::printf("%s\n", doc.dump(2).c_str()); }

InputError no_such_run(const HistoryStore& store, int64_t id) {
  return InputError(fmt::format("{} has no run {}: `opcert history list` shows the ids", store.describe(), id));
}

}  // namespace

void add_runs(HistoryStore& store, const std::vector<std::string>& runs, const std::string& project_commit,
              const PlatformCatalog& platforms) {
  for (const std::string& run : runs) {
    const AddResult added = store.add(run, project_commit, platforms);
    std::printf("run %lld %s: %s\n", static_cast<long long>(added.id), outcome_name(added.outcome).c_str(), run.c_str());
  }
}

void print_runs(HistoryStore& store, const RunFilter& filter, bool json) {
  const auto runs = store.list(filter);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const StoredRun& r : runs) out.push_back(stored_run_json(r));
    print_json(out);
  } else {
    std::printf("%s", runs_table(runs).c_str());
  }
}

void print_run(HistoryStore& store, int64_t id, bool json) {
  const auto run = store.find(id);
  if (!run) throw no_such_run(store, id);
  const RunReport report = store.report(id);
  if (json)
    print_json(run_details_json(*run, report));
  else
    std::printf("%s", run_details_text(*run, report).c_str());
}

void remove_runs(HistoryStore& store, std::vector<int64_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (const int64_t id : ids)  // every id is checked before one is removed
    if (!store.find(id)) throw no_such_run(store, id);
  for (const int64_t id : ids) {
    store.remove(id);
    std::printf("run %lld removed\n", static_cast<long long>(id));
  }
}

void export_runs(HistoryStore& store, const std::vector<int64_t>& ids, const std::string& out) {
  const nlohmann::json doc = store.export_json(ids);
  if (out.empty()) {
    print_json(doc);
    return;
  }
  try {
    write_file_atomically(out, doc.dump(2) + "\n");
  } catch (const std::exception& e) {
    throw InputError(fmt::format("--out '{}': {}; give a file in a directory that exists", out, e.what()));
  }
}

}  // namespace opcert
