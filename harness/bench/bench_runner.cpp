#include "bench/bench_runner.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "bench/bench_job.h"
#include "bench/bench_resume.h"
#include "bench/bench_worker.h"
#include "bench/bench_workers.h"
#include "bench/google_benchmark_reporter.h"
#include "bench/roofline.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/alignment.h"
#include "reports/json_report_writer.h"
#include "reports/output_sets.h"
#include "session/exit_rule.h"
#include "session/job_list.h"
#include "session/job_record.h"
#include "session/memory_admission.h"
#include "session/op_call_builder.h"
#include "session/run_header.h"
#include "session/run_paths.h"

namespace opcert {
namespace {

// Jobs grouped by case (suite order), the peer first within a case, so that every row's speedup
// is known when it is printed.
std::vector<Job> ordered_jobs(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s) {
  auto jobs = plan_checked_jobs(backend_plans(targets), suite, s.filter, s.impl_selection);
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.case_index < b.case_index; });
  return jobs;
}

// What makes figures of two sittings comparable: the host, its CPU and its GPUs by name and UUID
// (not their clocks or temperatures, which change between sittings).
nlohmann::json machine_identity(const nlohmann::json& environment) {
  nlohmann::json gpus = nlohmann::json::array();
  if (environment.contains("gpus") && environment["gpus"].is_array())
    for (const auto& g : environment["gpus"])
      gpus.push_back({{"name", g.value("name", nlohmann::json())}, {"uuid", g.value("uuid", nlohmann::json())}});
  const nlohmann::json& cpu = environment.contains("cpu") ? environment["cpu"] : nlohmann::json();
  return {{"host", environment.value("host", nlohmann::json())},
          {"cpu", cpu.is_object() ? cpu.value("model", nlohmann::json()) : cpu},
          {"gpus", gpus}};
}

// The copy baseline timed just before the first job of its backend on the case.
BenchJob copy_baseline_job(const BenchJob& op_job) {
  BenchJob copy;
  copy.backend = op_job.backend;
  copy.impl_key = op_job.backend->name() + ".copy";
  copy.test_case = op_job.test_case;
  copy.copy_baseline = true;
  copy.name = op_job.test_case->id + "/" + copy.impl_key;
  copy.work = op_job.work;
  copy.platform = op_job.platform;
  return copy;
}

// Queries support up front: an unsupported case, or one too big for the memory there is
// (session/memory_admission.h), is recorded SKIPPED, never registered. A supported one leaves the
// library call its backend says it makes in `library_call`.
std::optional<CaseResult> unsupported(BackendHandle& backend, const std::string& impl_key, const Case& c,
                                      std::string& library_call, uint64_t max_memory) {
  CaseResult r = blank_result(backend.name(), impl_key, c);
  try {
    const DeviceDescription& device = backend.devices().at(0);
    OpCallBuilder call(c, impl_key, device.device);
    const SupportAnswer answer = backend.query(call.call());
    library_call = answer.library_call;
    const std::string too_big = answer.supported ? admission_refusal(case_footprint(c), memory_limits(device, max_memory)) : "";
    if (answer.supported && too_big.empty()) return std::nullopt;
    r.status = Status::kSkipped;
    r.skip_reason = !too_big.empty() ? skip_reason::kTooBig : skip_reason::kDeclined;
    r.message = !too_big.empty() ? too_big : answer.reason.empty() ? "unsupported" : answer.reason;
  } catch (const std::exception& e) {
    r.status = Status::kError;
    r.message = fmt::format("query_op failed: {}", e.what());
  }
  return r;
}

// The name a platform's `device` is matched against: the backend's own, and for a CUDA device the
// GPU's name from nvidia-smi too (a backend on LibTorch knows only "CUDA device 0").
std::string device_match_name(const BackendHandle& backend, const nlohmann::json& gpus) {
  const DeviceDescription& d = backend.devices().at(0);
  std::string name = d.name;
  if (d.device.type == OPCERT_DEVICE_CUDA && gpus.is_array())
    for (const auto& gpu : gpus)
      if (gpu.value("index", -1) == d.device.index && gpu.contains("name") && gpu["name"].is_string())
        name += " " + gpu["name"].get<std::string>();
  return name;
}

// Google Benchmark's context (the host's CPUs, caches, load), printed to stderr once and recorded
// for bench.json as its JSON reporter would. The workers run on this host: it is theirs too.
nlohmann::json google_benchmark_context() {
  const benchmark::BenchmarkReporter::Context context;
  benchmark::BenchmarkReporter::PrintBasicContext(&std::cerr, context);
  return google_benchmark_context_json(context, now_utc());
}

nlohmann::json sampling_json(const SamplingPolicy& p) {
  return {{"min_time_s", p.min_time_s},
          {"fixed_samples", p.fixed_samples ? nlohmann::json(*p.fixed_samples) : nlohmann::json(nullptr)},
          {"max_noise", p.max_noise},
          {"max_time_s", p.max_time_s},
          {"min_samples", p.min_samples},
          {"warmup_s", p.warmup_s},
          {"warmup_launches", p.warmup_launches}};
}

}  // namespace

bool is_reserved_benchmark_flag(const std::string& flag) {
  for (const char* reserved : {"--benchmark_out=", "--benchmark_out_format", "--benchmark_format", "--benchmark_list_tests"})
    if (flag.rfind(reserved, 0) == 0) return true;
  return flag == "--benchmark_out";
}

int run_benchmarks(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s) {
  const auto planned = ordered_jobs(targets, suite, s);
  prepare_out_dir(s.out_dir);
  initialize_google_benchmark(s.benchmark_flags);  // a bad flag is bad usage before any worker starts

  RunReport report = run_header(kBenchReportKind, targets, suite, s);
  report.bench_settings = {{"cold_l2", s.cold_l2},
                           {"copy_baseline", s.copy_baseline},
                           {"benchmark_flags", s.benchmark_flags},
                           {"sampling", sampling_json(s.sampling)}};
  const nlohmann::json machine = capture_environment(s.environment);
  const nlohmann::json gpus = machine.value("gpus", nlohmann::json());
  const JobRecord job_record_now = job_record(
      report, s,
      {{"bench_settings", report.bench_settings}, {"max_memory", s.max_memory}, {"machine", machine_identity(machine)}});
  std::vector<BenchJob> jobs;
  std::vector<CaseResult> skipped;
  std::map<std::size_t, std::size_t> peer_job_of_case;
  std::map<std::pair<BackendHandle*, std::size_t>, std::size_t> copy_job_of;  // (backend, case) -> job
  for (const Job& j : planned) {
    BackendHandle* backend = targets.at(j.backend_index).backend;
    const Case& c = suite.cases.at(j.case_index);
    std::string library_call;
    if (auto r = unsupported(*backend, j.impl_key, c, library_call, s.max_memory)) {
      skipped.push_back(std::move(*r));
      continue;
    }
    BenchJob job;
    job.library_call = std::move(library_call);
    job.backend = backend;
    job.impl_key = j.impl_key;
    job.test_case = &c;
    job.peer = j.peer;
    job.name = c.id + "/" + j.impl_key;
    try {
      job.work = work_model(c);
    } catch (const std::exception& e) {
      job.error = fmt::format("no work model: {}", e.what());
    }
    job.platform = s.platforms ? platform_for_device(*s.platforms, s.platform, device_match_name(*backend, gpus)) : nullptr;
    const bool is_peer = !s.peer.empty() && backend->name() == s.peer;
    if (is_peer && !peer_job_of_case.contains(j.case_index))
      peer_job_of_case[j.case_index] = jobs.size();
    else if (!is_peer)
      if (auto it = peer_job_of_case.find(j.case_index); it != peer_job_of_case.end()) job.peer_job = it->second;
    if (s.copy_baseline && !job.peer && job.error.empty() && !job.work.compute_bound && job.work.bytes > 0) {
      const auto key = std::make_pair(backend, j.case_index);
      if (!copy_job_of.contains(key)) {
        copy_job_of[key] = jobs.size();
        jobs.push_back(copy_baseline_job(job));
      }
      job.copy_job = copy_job_of[key];
    }
    jobs.push_back(std::move(job));
  }

  // --resume: the cases an earlier sitting measured whole keep their records and checks.
  const std::optional<KeptBenchmarks> kept = s.resume ? kept_benchmarks(s.out_dir, job_record_now, jobs) : std::nullopt;
  std::vector<bool> is_kept(jobs.size(), false);
  if (kept) {
    report.started_at = kept->started_at;
    if (!kept->run_id.empty()) report.run_id = kept->run_id;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const auto record = kept->records.find(jobs[i].name);
      if (record == kept->records.end()) continue;
      is_kept[i] = true;
      jobs[i].error = record->second.error;
      if (const auto check = kept->checks.find(check_identity(jobs[i])); check != kept->checks.end())
        jobs[i].check = check->second;
    }
  }

  ResultStream stream;
  try {
    std::vector<PlannedRow> rows;
    BenchTableLayout layout{.copy_column = s.copy_baseline, .clocks_column = false, .peer = s.peer};
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (is_kept[i]) continue;
      rows.push_back({jobs[i].test_case->op, jobs[i].test_case->id, jobs[i].impl_key});
      layout.clocks_column |= jobs[i].backend->devices().at(0).device.type == OPCERT_DEVICE_CUDA;
    }
    if (!kept) write_job_record(s.out_dir, job_record_now);
    else rewrite_kept_files(s.out_dir, *kept);
    add_bench_outputs(stream, s.out_dir, rows, layout, kept.has_value());
  } catch (const std::exception& e) {
    throw InputError(fmt::format("--out '{}': {}", s.out_dir.string(), e.what()));
  }
  stream.run_started(report);
  if (kept)
    stream.note(fmt::format("opcert: resuming {}: {} case(s) measured whole kept ({} benchmark(s)), {} benchmark(s) to run",
                            s.out_dir.string(), kept->cases, kept->records.size(),
                            std::count(is_kept.begin(), is_kept.end(), false)));
  for (const auto& r : skipped) stream.case_done(r, false);  // judged afresh in every sitting

  // Each job is checked and timed in its backend's worker (bench/bench_workers.h), case by case,
  // the peer first: a crash or a hang costs its row alone.
  BenchWorkers workers(suite, s);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (is_kept[i]) continue;
    if (!workers.measure(jobs, i)) break;
    if (jobs[i].check) stream.case_done(*jobs[i].check, jobs[i].peer);
    if (jobs[i].runs.empty() && jobs[i].error.empty()) continue;  // left out by --benchmark_filter
    if (!report.bench_context.is_object()) report.bench_context = google_benchmark_context();
    stream.benchmark_done(bench_record(jobs[i], jobs));
  }
  for (const std::string& note : workers.shutdown()) stream.note("opcert: " + note);
  report.bench_settings["conditions"] =
      !workers.conditions().is_null()
          ? workers.conditions()
          : nlohmann::json{{"source", nullptr}, {"unavailable", "no CUDA device was benchmarked"}};
  if (report.bench_context.is_object()) report.bench_context["measurement_conditions"] = report.bench_settings["conditions"];
  benchmark::Shutdown();

  for (const auto& job : jobs)
    if (job.check) report.results.push_back(*job.check);
  for (auto& r : skipped) report.results.push_back(std::move(r));
  const bool timing_failed =
      std::any_of(jobs.begin(), jobs.end(), [](const BenchJob& j) { return !j.peer && !j.error.empty(); });
  // A bench is never interrupted here: a signal ends it, and --resume goes on from measurements.jsonl.
  const int exit_code = stream.exit_code_with_outputs(
      session_exit_code(report.results, peer_only_backends(targets), false, timing_failed));
  fill_alignment(report.results, s.peer);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    report.benchmarks.push_back(is_kept[i] ? kept->records.at(jobs[i].name) : bench_record(jobs[i], jobs));
    // Google Benchmark numbers the families it ran, from 0 in each sitting: number them as one.
    for (BenchRun& run : report.benchmarks.back().runs) run.family_index = static_cast<int64_t>(i);
  }
  report.exit_code = exit_code;
  report.finished_at = now_utc();
  report.environment = capture_environment(s.environment);
  stream.run_finished(report);
  return stream.finish(exit_code);
}

}  // namespace opcert
