// A benchmark's record as report.json ("benchmarks") and measurements.jsonl write it
// (reports/schema/report.schema.json, $defs/benchmark), and its runs as bench.json writes them
// (Google Benchmark's JSON shape).
#pragma once

#include <nlohmann/json.hpp>

#include "model/bench_record.h"

namespace opcert {

nlohmann::json bench_record_json(const BenchRecord& record);

/// The record back from what bench_record_json wrote (its repetitions as runs with their
/// sampling, its aggregates as aggregate runs); fields a reader does not need, and fields an older
/// report lacks, stay at their defaults. Throws std::runtime_error naming a field of the wrong type.
BenchRecord bench_record_from_json(const nlohmann::json& doc);

/// The record's runs as Google Benchmark's JSON reporter writes them (name, family_index,
/// run_name, run_type, repetitions, iterations, real_time, cpu_time in us, counters, label), so
/// that its tools/compare.py reads bench.json.
nlohmann::json google_benchmark_runs_json(const BenchRecord& record);

}  // namespace opcert
