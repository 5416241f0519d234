// The outputs each verb gives (docs/CLI.md, "Outputs"), as sinks added to its result stream.
// Opening them opens the files that stream as they go: a --out that cannot be written fails here,
// before anything runs (std::runtime_error naming the file).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "reports/bench_tables.h"
#include "reports/progress.h"
#include "reports/result_stream.h"

namespace opcert {

/// `opcert run`: results.jsonl, the progress display over `jobs` jobs, then report.json,
/// junit.xml, summary.md and the summary table; with `profile` (--profile) the profile after it.
/// `resumed`: results.jsonl keeps what is there.
void add_conformance_outputs(ResultStream& stream, const std::filesystem::path& out_dir, ProgressMode progress,
                             std::size_t jobs, bool resumed = false, bool profile = false);

/// `opcert bench` on compute ops: results.jsonl (the checks), measurements.jsonl, report.json,
/// bench.json, and the bench table (its rows as they come, its footer after the files). `resumed`:
/// the two .jsonl files of an earlier sitting are added to, not replaced.
void add_bench_outputs(ResultStream& stream, const std::filesystem::path& out_dir, const std::vector<PlannedRow>& planned,
                       const BenchTableLayout& layout, bool resumed = false);

/// `opcert bench` on collectives (rank 0): results.jsonl, measurements.jsonl, report.json,
/// bench.json, and the sweep's table.
void add_collective_bench_outputs(ResultStream& stream, const std::filesystem::path& out_dir);

}  // namespace opcert
