// `opcert bench --resume DIR` (docs/CLI.md, "Resuming a run"): what an earlier sitting of the same
// job (session/job/job_sitting.h) measured in DIR, kept a case at a time. A case whose every benchmark was recorded (the peer,
// each backend's implementations, the copy baseline) keeps its records and checks; a case cut short
// is measured again whole, so that the speedups of a row always compare figures of one sitting.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench/bench_job.h"
#include "model/bench_record.h"
#include "model/case_result.h"

namespace opcert {

struct KeptBenchmarks {
  std::map<std::string, BenchRecord> records;  ///< by kept_key, whole cases only
  std::map<std::string, CaseResult> checks;    ///< their checks, by result_identity
  std::set<std::string> results_kept;          ///< result_identity of every check kept
  std::size_t cases = 0;                       ///< cases kept
  std::string measurements_text;  ///< measurements.jsonl as it is to be before the bench goes on: the kept lines
  std::string results_text;       ///< results.jsonl likewise: the kept checks, once each (skips are judged again)
};

/// What `out_dir`, where an earlier sitting of the same job measured (session/job/job_sitting.h
/// decides that it is one), holds of the benchmarks `jobs`. With --device-mode each the jobs are
/// placed on their devices (bench/bench_lanes.h) and a case is kept device by device; spread, a
/// case is kept whichever device timed it. Throws InputError when a line cannot be read back.
KeptBenchmarks kept_benchmarks(const std::filesystem::path& out_dir, const std::vector<BenchJob>& jobs);

/// A job's key in KeptBenchmarks::records: its name, and its device when it was placed on one.
std::string kept_key(const BenchJob& job);

/// Rewrites measurements.jsonl and results.jsonl of `out_dir` to hold only what `kept` keeps (each
/// atomically), so that the bench appends to files in which every benchmark and result is once.
void rewrite_kept_files(const std::filesystem::path& out_dir, const KeptBenchmarks& kept);

/// The identity of a bench job's check result (session/job/job_record.h's result_identity), with
/// the device it was placed on (each), if any.
std::string check_identity(const BenchJob& job);

}  // namespace opcert
