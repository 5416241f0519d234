// The rows of `opcert bench` on collectives: the table's cells, the peer's busbw and the ratio to
// it, and a row's record in report.json and measurements.jsonl.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/collective_bench.h"
#include "bench/collective_bench_job.h"

namespace opcert {

/// The table's header and a row's cells: size, count, type, op (with the reduce op or root),
/// in place, impl, time us, algbw GB/s, busbw GB/s, peer busbw, ratio, check.
std::vector<std::string> collective_bench_header();
std::vector<std::string> collective_bench_cells(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs,
                                                int ranks);
/// One line of the table, in fixed-width columns, flushed.
void print_collective_bench_row(std::FILE* out, const std::vector<std::string>& cells);

/// The best busbw of the peer rows on the same case and size that PASSED, and ours over it.
std::optional<double> peer_busbw_gbps(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks);
std::optional<double> ratio_vs_peer(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks);

/// True for a row status that fails a selected backend's row (FAILED, ERROR, TIMEOUT, CRASHED).
bool collective_row_gates(Status s);

/// A row's record in report.json ("benchmarks") and measurements.jsonl.
nlohmann::json collective_bench_record_json(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs,
                                            int ranks, const CollectiveBenchSettings& settings);

}  // namespace opcert
