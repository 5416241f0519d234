// Google Benchmark's display reporter for `opcert bench`: it turns what Google Benchmark reports
// into opcert's records. Each run (a repetition or an aggregate) joins its job's BenchRuns; when a
// benchmark's last report arrives (its aggregates, with repetitions) the job is done and
// `on_done` gets its index. Google Benchmark's own context (CPU, caches, load, scaling warnings)
// goes to stderr, and to `on_context` as the object bench.json records.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_job.h"

namespace opcert {

class GoogleBenchmarkReporter : public benchmark::BenchmarkReporter {
 public:
  GoogleBenchmarkReporter(std::vector<BenchJob>& jobs, std::function<void(const nlohmann::json&)> on_context,
                          std::function<void(std::size_t)> on_done);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;

 private:
  std::vector<BenchJob>& jobs_;
  std::function<void(const nlohmann::json&)> on_context_;
  std::function<void(std::size_t)> on_done_;
  std::map<std::string, std::size_t> by_name_;
};

/// Google Benchmark's context as its JSON reporter writes it (host_name, executable, num_cpus,
/// mhz_per_cpu, cpu_scaling_enabled, caches, load_avg, json_schema_version), with `date`.
nlohmann::json google_benchmark_context_json(const benchmark::BenchmarkReporter::Context& context,
                                             const std::string& date);

}  // namespace opcert
