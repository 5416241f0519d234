// The results store (docs/HISTORY.md): every run added to it, with its results, benchmarks and
// each repetition's measurement, in a SQLite file or on a PostgreSQL server, under one schema.
// `opcert history`, `--history` on run and bench, and `opcert dashboard` read and write it here.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "history/sql_connection.h"
#include "loader/platform/platform_config.h"
#include "reports/run_report.h"

namespace opcert {

/// A run as the store lists it: its row, and how its results and benchmarks came out.
struct StoredRun {
  int64_t id = 0;
  std::string kind;  ///< "run" or "bench"
  std::string started_at, finished_at, added_at;
  bool complete = true;
  int exit_code = 0;
  std::string opcert_version, opcert_commit, project_commit;
  std::string host, cpu_model, devices, driver_version;
  nlohmann::json libraries;  ///< {"torch": "2.11.0", ...}
  std::string platform, suite, suite_sha256, peer, command_line, source_dir;
  uint64_t seed = 0;
  int64_t results = 0, passed = 0, skipped = 0, failed = 0;  ///< failed: neither passed nor skipped
  int64_t benchmarks = 0;
};

/// What to list: each field narrows when set; `limit` keeps the latest runs.
struct RunFilter {
  std::string platform, suite, kind, host;
  std::optional<int64_t> limit;
};

enum class AddOutcome {
  kAdded,      ///< new to the store
  kUnchanged,  ///< the same run, the same report: nothing written
  kReplaced,   ///< the same run (its run_id) with a newer report (a resumed run): replaced, same id
};

struct AddResult {
  int64_t id = 0;
  AddOutcome outcome = AddOutcome::kAdded;
};

std::string outcome_name(AddOutcome outcome);

class HistoryStore {
 public:
  /// Opens the store at `location`: a postgresql:// (or postgres://) URL, else a SQLite file path
  /// (created when `create` is set; without it, a database or file holding no store is refused).
  /// Applies the migrations it lacks. InputError (exit 2) for a store that cannot be opened, is not
  /// opcert's, or is newer than this opcert.
  static std::unique_ptr<HistoryStore> open(const std::string& location, bool create);

  explicit HistoryStore(std::unique_ptr<SqlConnection> connection);

  /// Adds the run whose report.json is at `run` (its directory or the file), in one transaction:
  /// adding a run twice changes nothing. `project_commit` is the commit under test, "" if not
  /// given; `platforms` gives the peaks of the run's platforms, kept with it for the roofline.
  AddResult add(const std::filesystem::path& run, const std::string& project_commit, const PlatformCatalog& platforms);

  /// The runs matching `filter`, oldest first.
  std::vector<StoredRun> list(const RunFilter& filter);
  std::optional<StoredRun> find(int64_t id);
  /// The run's report as it was added (report.json's document), read back into the result model.
  RunReport report(int64_t id);
  nlohmann::json report_document(int64_t id);
  /// The platforms' peaks recorded with the run: {"<platform>": {"tflops": {...}, "memory_gbps": ...}}.
  nlohmann::json peaks(int64_t id);
  /// Removes the run and everything of it; false when there is no such run.
  bool remove(int64_t id);
  /// The runs (all, or those of `ids`) with their backends, results, benchmarks and measurements,
  /// as the schema holds them (docs/HISTORY.md, "Export").
  nlohmann::json export_json(const std::vector<int64_t>& ids);

  int version();
  std::string describe() const { return connection_->describe(); }
  SqlConnection& connection() { return *connection_; }

 private:
  std::unique_ptr<SqlConnection> connection_;
};

/// Whether `location` names a PostgreSQL server rather than a SQLite file.
bool is_postgres_location(const std::string& location);

/// `location` with any password in a URL replaced by "***", for messages.
std::string redacted_location(const std::string& location);

}  // namespace opcert
