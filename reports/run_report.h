// Everything a finished (or interrupted) run hands to the sinks of the result stream: the result
// model that report.json, junit.xml, summary.md, bench.json and later verbs read. Knows nothing
// of how the run was driven (DESIGN.md section 1: reports -> model only).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/bench_record.h"
#include "model/case_result.h"
#include "model/package_identity.h"

namespace opcert {

/// A backend as it took part in the run, with provenance for a certification record.
struct BackendRecord {
  std::string name;
  std::string version;
  std::string source;         // "built-in" or "plugin"
  std::string library_path;   // plugins only
  std::string sha256;         // plugins only
  bool peer = false;          // taking part only as the peer (alignment and speed yardstick), not gated
  /// The package its code comes from, where the library is a bridge (a Python backend's
  /// distribution): name, version and SHA-256 over its files; empty otherwise.
  PackageIdentity package;
  /// The ops it has at least one implementation of, whatever --impl selected (schema 2.7): what
  /// coverage (reports/coverage.h) tells "no implementation" from "declined" by.
  std::vector<std::string> ops;
};

/// One (op, dtype) pair of a run's plan: how many of the selected cases have that op and declared dtype.
struct PlannedPair {
  std::string op;
  std::string dtype;
  int64_t cases = 0;
};

struct RunReport {
  /// What produced it: "opcert-conformance-report" (`opcert run`) or "opcert-bench-report"
  /// (kBenchReportKind, `opcert bench`).
  std::string kind = "opcert-conformance-report";
  std::string opcert_version;
  std::string command_line;
  std::string suite;          // as asked for
  std::string suite_path;
  std::string suite_sha256;
  uint64_t seed = 0;
  std::string platform;       // the platform config applied, "" when none
  /// The backend results were compared with (alignment, speed ratios): --peer, "" for none.
  std::string peer;
  /// 32 hex digits drawn when the run first starts; a resumed run keeps it. What tells two runs
  /// apart in a history (docs/HISTORY.md): "" in reports before schema 2.6.
  std::string run_id;
  std::string started_at;     // ISO 8601 UTC
  std::string finished_at;
  bool complete = true;       // false when the run was interrupted
  nlohmann::json environment; // host, CPU, GPU, driver, library versions, git commit (reports/environment.h)
  std::vector<BackendRecord> backends;
  /// The (op, dtype) pairs of the selected cases, in the order they first appear in the suite;
  /// empty in reports before schema 2.7 (their coverage is unknown).
  std::vector<PlannedPair> plan;
  std::vector<CaseResult> results;  // alignment ratios filled in
  /// `opcert bench`: every benchmark's record, the bench's settings, and the context bench.json
  /// records (Google Benchmark's, or the sweep's).
  std::vector<BenchRecord> benchmarks;
  nlohmann::json bench_settings;
  nlohmann::json bench_context;
  int exit_code = 0;
  /// How many ranks took part and how they were launched ("mpi", or "single" when opcert was not
  /// started by an MPI launcher): collectives, and compute ops run across ranks with --devices;
  /// absent for a run of compute ops in one process.
  std::optional<int> ranks;
  std::string launcher;
};

/// The environment's string field `key` ("host", "git_commit"), "" when absent or not a string.
inline std::string environment_string(const RunReport& report, const char* key) {
  if (!report.environment.is_object()) return "";
  const auto it = report.environment.find(key);
  return it != report.environment.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace opcert
