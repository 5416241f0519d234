// What `opcert history list` and `show` print: a table for a person, JSON for a script
// (docs/HISTORY.md, "Listing").
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "history/history_store.h"
#include "reports/run_report.h"

namespace opcert {

/// A commit's first 12 characters, as listings show it.
std::string short_commit(const std::string& commit);

/// The device a stored run measured on: its GPUs, else its CPU.
std::string stored_run_device(const StoredRun& run);

/// One line per run, columns aligned, with a header; "no runs" when empty.
std::string runs_table(const std::vector<StoredRun>& runs);
nlohmann::json stored_run_json(const StoredRun& run);

/// `show`: the run's facts, the counts per backend and op, the results that did not pass with
/// their repro lines, and the benchmarks' speedups over the peer.
std::string run_details_text(const StoredRun& run, const RunReport& report);
nlohmann::json run_details_json(const StoredRun& run, const RunReport& report);

}  // namespace opcert
