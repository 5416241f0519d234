// What the dashboard shows, gathered from the results store: runs grouped into lineages (runs
// whose figures may be set side by side), each (case, implementation) of a lineage as a series
// over its runs, and the regressions `opcert compare`'s gates find between consecutive runs.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "history/history_store.h"
#include "reports/run_report.h"

namespace opcert {

/// Runs of one kind and suite on one platform and device, oldest first: one line on a trend plot.
struct Lineage {
  std::string key;    ///< "bench|bench/smoke|cpu|AMD EPYC": what makes runs comparable
  std::string label;  ///< "bench/smoke on cpu (AMD EPYC)"
  std::vector<int64_t> run_ids;
};

/// One run's figures for a series; what the run did not measure stays empty.
struct SeriesPoint {
  int64_t run_id = 0;
  std::string started_at;
  std::string commit;  ///< the project commit, else opcert's
  std::string status;  ///< the result's status, or the benchmark's check
  std::optional<double> seconds, seconds_min, seconds_max;  ///< typical time and the repetitions' range
  std::vector<double> repetitions;
  std::optional<double> throughput;  ///< TFLOP/s or GB/s (the series says which)
  std::optional<double> speedup_vs_peer;
  std::optional<double> alignment_ratio, rmse;
  std::vector<std::string> regressions;  ///< what `opcert compare`'s gates failed against the run before
};

struct Series {
  std::string slug;  ///< the page's file name stem
  size_t lineage = 0;
  std::string case_id, impl_key, op, backend, dtype;
  bool peer = false;
  std::string throughput_unit;  ///< "TFLOP/s", "GB/s", or "" when nothing was timed
  std::vector<SeriesPoint> points;
  bool regressed_last = false;  ///< the latest run has a regression
  int regressions = 0;          ///< points with one
};

struct DashboardModel {
  std::string store;  ///< the store as described in messages
  std::vector<StoredRun> runs;           ///< oldest first
  std::map<int64_t, RunReport> reports;  ///< by run id
  std::map<int64_t, nlohmann::json> peaks;
  std::vector<Lineage> lineages;
  std::vector<Series> series;            ///< by lineage, then op, case, implementation
  std::vector<std::string> notes;        ///< consecutive runs that could not be compared, and why
};

/// Reads every run of the store and gathers the model.
DashboardModel gather_dashboard(HistoryStore& store);

/// The lineage key of a run (see Lineage::key).
std::string lineage_key(const StoredRun& run);

}  // namespace opcert
