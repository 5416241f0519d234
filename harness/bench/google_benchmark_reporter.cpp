#include "bench/google_benchmark_reporter.h"

#include <cmath>

#include "session/job/run_header.h"

namespace opcert {
namespace {

using Run = benchmark::BenchmarkReporter::Run;

// Google Benchmark 1.8 replaced error_occurred/error_message by skipped/skip_message.
template <class R>
std::string run_error(const R& run) {
  if constexpr (requires { run.error_occurred; })
    return run.error_occurred ? run.error_message : std::string();
  else
    return run.skipped ? run.skip_message : std::string();
}

BenchRun bench_run(const Run& run) {
  BenchRun r;
  r.name = run.benchmark_name();
  r.run_name = run.run_name.str();
  r.aggregate = run.run_type == Run::RT_Aggregate ? run.aggregate_name : "";
  r.aggregate_is_percentage = run.run_type == Run::RT_Aggregate && run.aggregate_unit == benchmark::kPercentage;
  r.family_index = run.family_index;
  r.per_family_instance_index = run.per_family_instance_index;
  r.repetitions = run.repetitions;
  r.repetition_index = run.repetition_index;
  r.threads = run.threads;
  r.iterations = static_cast<int64_t>(run.iterations);
  r.error = run_error(run);
  const double multiplier = benchmark::GetTimeUnitMultiplier(run.time_unit);
  r.seconds = r.aggregate_is_percentage ? run.real_accumulated_time : run.GetAdjustedRealTime() / multiplier;
  r.cpu_seconds = r.aggregate_is_percentage ? run.cpu_accumulated_time : run.GetAdjustedCPUTime() / multiplier;
  for (const auto& [name, counter] : run.counters) r.counters[name] = counter.value;
  return r;
}

}  // namespace

nlohmann::json google_benchmark_context_json(const benchmark::BenchmarkReporter::Context& context,
                                             const std::string& date) {
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : context.cpu_info.caches)
    caches.push_back({{"type", c.type}, {"level", c.level}, {"size", c.size}, {"num_sharing", c.num_sharing}});
  nlohmann::json j = {{"date", date},
                      {"host_name", context.sys_info.name},
                      {"num_cpus", context.cpu_info.num_cpus},
                      {"mhz_per_cpu", std::llround(context.cpu_info.cycles_per_second / 1e6)},
                      {"caches", caches},
                      {"load_avg", context.cpu_info.load_avg},
                      {"json_schema_version", 1}};
  if (const char* executable = benchmark::BenchmarkReporter::Context::executable_name) j["executable"] = executable;
  if (context.cpu_info.scaling != benchmark::CPUInfo::UNKNOWN)
    j["cpu_scaling_enabled"] = context.cpu_info.scaling == benchmark::CPUInfo::ENABLED;
  return j;
}

GoogleBenchmarkReporter::GoogleBenchmarkReporter(std::vector<BenchJob>& jobs,
                                                 std::function<void(const nlohmann::json&)> on_context,
                                                 std::function<void(std::size_t)> on_done)
    : jobs_(jobs), on_context_(std::move(on_context)), on_done_(std::move(on_done)) {
  for (std::size_t j = 0; j < jobs_.size(); ++j) by_name_[jobs_[j].name] = j;
}

bool GoogleBenchmarkReporter::ReportContext(const Context& context) {
  PrintBasicContext(&GetErrorStream(), context);
  if (on_context_) on_context_(google_benchmark_context_json(context, now_utc()));
  return true;
}

void GoogleBenchmarkReporter::ReportRuns(const std::vector<Run>& runs) {
  if (runs.empty()) return;
  const auto it = by_name_.find(runs.front().run_name.function_name);
  if (it == by_name_.end()) return;
  BenchJob& job = jobs_[it->second];
  for (const auto& run : runs) {
    BenchRun r = bench_run(run);
    // Each iteration Google Benchmark ran is one sampling of many launches: the run carries it,
    // and counts launches, not iterations.
    if (r.aggregate.empty() && r.error.empty() && !job.unreported_samplings.empty()) {
      r.sampling = std::move(job.unreported_samplings.front());
      job.unreported_samplings.erase(job.unreported_samplings.begin());
      if (r.sampling->samples > 0) {
        r.cpu_seconds *= static_cast<double>(r.iterations) / static_cast<double>(r.sampling->samples);
        r.iterations = r.sampling->samples;
      }
    }
    job.runs.push_back(std::move(r));
  }
  // With repetitions Google Benchmark reports a benchmark twice: its repetitions, then their
  // aggregates. The job waits for the aggregates unless timing failed (no aggregates come then).
  const bool repetitions_only = runs.front().run_type == Run::RT_Iteration && runs.front().repetitions > 1;
  if (repetitions_only && job.error.empty()) return;
  if (on_done_) on_done_(it->second);
}

}  // namespace opcert
