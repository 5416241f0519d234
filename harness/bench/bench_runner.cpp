#include "bench/bench_runner.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

#include "bench/bench_job.h"
#include "bench/bench_resume.h"
#include "bench/cache_flusher.h"
#include "bench/google_benchmark_reporter.h"
#include "bench/gpu_monitor.h"
#include "bench/roofline.h"
#include "bench/sample_timer.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/alignment.h"
#include "reports/json_report_writer.h"
#include "reports/output_sets.h"
#include "session/execution.h"
#include "session/job_list.h"
#include "session/job_record.h"
#include "session/memory_admission.h"
#include "session/op_call_builder.h"
#include "session/prepared_case.h"
#include "session/run_header.h"
#include "session/run_paths.h"

namespace opcert {
namespace {

// Launches after the check and before the samples: first-touch costs, lazy initialisation and
// clock ramp-up stay out of the figures. At least policy.warmup_launches, more until
// policy.warmup_s have passed (--benchmark_min_warmup_time).
template <class Launch>
void warm_up(SampleTimer& timer, const SamplingPolicy& policy, Launch launch) {
  double warm = 0.0;
  for (int64_t i = 0; i < policy.warmup_launches || warm < policy.warmup_s; ++i) warm += timer.time(launch);
}

bool gates(Status s) { return s == Status::kFailed || s == Status::kError || s == Status::kCrashed || s == Status::kTimeout; }

ExecutionOptions options_for(const Case& c, const BenchSettings& s) {
  ExecutionOptions o = execution_options(c, s.platforms && !s.platform.empty() ? s.platforms->find(s.platform) : nullptr);
  o.max_memory = s.max_memory;
  return o;
}

// Holds the one case being timed, the timers and flushers per backend, and runs each benchmark.
class BenchEngine {
 public:
  BenchEngine(std::vector<BenchJob>& jobs, const BenchSettings& s, ResultStream& stream)
      : jobs_(jobs), settings_(s), stream_(stream) {}

  // One Google Benchmark iteration: one sampling of the active job, its launches timed one by one
  // until the policy stops it; the iteration's time is their mean.
  void measure(benchmark::State& state, std::size_t index) {
    BenchJob& job = jobs_[index];
    if (!activate(index)) {
      state.SkipWithError(job.error.c_str());
      return;
    }
    try {
      SampleTimer& timer = timer_for(*job.backend);
      CacheFlusher* flusher = settings_.cold_l2 ? &flusher_for(job) : nullptr;
      for (auto _ : state) {
        Sampled sampled = sample(job, timer, flusher);
        state.SetIterationTime(sampled.mean_s);
        job.latest_mean_s = sampled.mean_s;
        job.unreported_samplings.push_back(std::move(sampled.sampling));
      }
    } catch (const std::exception& e) {
      job.error = e.what();
      state.SkipWithError(job.error.c_str());
      release();
      return;
    }
    if (job.latest_mean_s > 0) set_counters(state, job, job.latest_mean_s);
    if (job.check) state.SetLabel(std::string(status_name(job.check->status)));
  }

  void release() {
    active_.reset();
    active_copy_.reset();
    active_index_.reset();
  }

 private:
  struct Sampled {
    Sampling sampling;
    double mean_s = 0.0;  ///< the mean seconds per launch: the iteration's time
  };

  // Times launches of the active job until the sampling policy stops, reading the GPU's conditions
  // just before the first and just after the last.
  Sampled sample(const BenchJob& job, SampleTimer& timer, CacheFlusher* flusher) {
    const SamplingPolicy& policy = settings_.sampling;
    const opcert_device device = active_or_first_device(*job.backend);
    Sampling sampling;
    sampling.conditions.start = read_conditions(device);
    NoiseTracker tracker;
    const auto begin = std::chrono::steady_clock::now();
    StopReason stop = StopReason::kContinue;
    while (stop == StopReason::kContinue) {
      if (flusher) flusher->flush();
      tracker.add(timer.time([&] { launch_active(); }));
      stop = should_stop(policy, tracker, std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
    }
    sampling.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    sampling.conditions.end = read_conditions(device);
    sampling.samples = tracker.count();
    sampling.noise = tracker.relative_stddev();
    sampling.stopped_by = stop_reason_name(stop);
    return {std::move(sampling), tracker.mean()};
  }

  // A reading of a CUDA device's clocks and power; nothing for other devices.
  std::optional<GpuReading> read_conditions(opcert_device device) {
    if (device.type != OPCERT_DEVICE_CUDA) return std::nullopt;
    return monitor().read(device.index);
  }

 public:
  /// NVML, loaded at the first CUDA benchmark.
  GpuMonitor& monitor() {
    if (!monitor_) monitor_ = std::make_unique<GpuMonitor>();
    return *monitor_;
  }
  bool monitored() const { return monitor_ != nullptr; }

 private:
  void launch_active() {
    if (active_copy_)
      active_copy_->flush();
    else
      active_->launch();
  }

  // A copy baseline: two device buffers of half the case's bytes, one copied over the other.
  bool activate_copy(std::size_t index) {
    BenchJob& job = jobs_[index];
    try {
      const auto half = static_cast<uint64_t>(std::max(job.work.bytes / 2, 1.0));
      active_copy_ = std::make_unique<CacheFlusher>(*job.backend, active_or_first_device(*job.backend), half);
      SampleTimer& timer = timer_for(*job.backend);
      job.timing_method = timer.method();
      warm_up(timer, settings_.sampling, [&] { active_copy_->flush(); });
    } catch (const std::exception& e) {
      job.error = e.what();
      active_copy_.reset();
      return false;
    }
    active_index_ = index;
    return true;
  }

  // Prepares the job's case (releasing the previous one), checks it once, warms it up.
  bool activate(std::size_t index) {
    if (active_index_ == index) return true;
    release();
    BenchJob& job = jobs_[index];
    if (!job.error.empty()) return false;
    if (job.copy_baseline) return activate_copy(index);
    const Case& c = *job.test_case;
    CaseResult early;
    auto prepared = PreparedCase::prepare(*job.backend, job.impl_key, c, options_for(c, settings_), early);
    if (!prepared) {
      job.error = early.message;
      record_check(job, std::move(early));
      return false;
    }
    try {
      if (!job.check) {
        prepared->launch();
        record_check(job, prepared->check());
        job.published_bytes = prepared->published_bytes();
        // The record names what was timed: the call as the backend says once it has run it (the
        // answer before the run may name a first choice the backend then had to leave).
        if (std::string ran = prepared->library_call(); !ran.empty()) job.library_call = std::move(ran);
        if (job.check->status == Status::kError) {
          job.error = job.check->message;
          return false;
        }
      }
      SampleTimer& timer = timer_for(*job.backend);
      job.timing_method = timer.method();
      warm_up(timer, settings_.sampling, [&] { prepared->launch(); });
    } catch (const std::exception& e) {
      job.error = e.what();
      if (!job.check) record_check(job, error_result(job, e.what()));
      return false;
    }
    active_ = std::move(prepared);
    active_index_ = index;
    return true;
  }

  static CaseResult error_result(const BenchJob& job, const std::string& message) {
    CaseResult r = blank_result(job.backend->name(), job.impl_key, *job.test_case);
    r.status = Status::kError;
    r.message = message;
    return r;
  }

  void record_check(BenchJob& job, CaseResult r) {
    job.check = std::move(r);
    stream_.case_done(*job.check, job.peer);
  }

  SampleTimer& timer_for(BackendHandle& backend) {
    auto& slot = timers_[&backend];
    if (!slot) slot = std::make_unique<SampleTimer>(backend, active_or_first_device(backend));
    return *slot;
  }

  CacheFlusher& flusher_for(const BenchJob& job) {
    auto& slot = flushers_[job.backend];
    if (!slot) {
      const opcert_device device = active_or_first_device(*job.backend);
      std::optional<uint64_t> cache;
      if (job.platform && job.platform->peaks.cache_mib)
        cache = static_cast<uint64_t>(*job.platform->peaks.cache_mib * 1024 * 1024);
      slot = std::make_unique<CacheFlusher>(*job.backend, device, flush_bytes_for(device, cache));
    }
    return *slot;
  }

  static opcert_device active_or_first_device(const BackendHandle& backend) {
    return backend.devices().at(0).device;
  }

  void set_counters(benchmark::State& state, const BenchJob& job, double mean) {
    if (job.work.flops > 0) state.counters["tflops"] = job.work.flops / mean / 1e12;
    if (job.work.bytes > 0) state.counters["gbps"] = job.work.bytes / mean / 1e9;
    if (job.platform)
      if (const auto pct = roofline_percent(job.work, job.platform->peaks, mean)) state.counters["pct_peak"] = *pct;
    if (job.peer_job) {
      const double peer = jobs_[*job.peer_job].latest_mean_s;
      if (peer > 0) state.counters["speedup_vs_peer"] = peer / mean;
    }
    if (job.copy_job) {
      const double copy = jobs_[*job.copy_job].latest_mean_s;
      if (copy > 0) state.counters["pct_of_copy"] = 100 * copy / mean;
    }
  }

  std::vector<BenchJob>& jobs_;
  const BenchSettings& settings_;
  ResultStream& stream_;
  std::unique_ptr<PreparedCase> active_;
  std::unique_ptr<CacheFlusher> active_copy_;  // the active job is a copy baseline
  std::optional<std::size_t> active_index_;
  std::map<BackendHandle*, std::unique_ptr<SampleTimer>> timers_;
  std::map<BackendHandle*, std::unique_ptr<CacheFlusher>> flushers_;
  std::unique_ptr<GpuMonitor> monitor_;
};

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

std::vector<std::string> benchmark_argv(const BenchSettings& s) {
  std::vector<std::string> args = {"opcert bench"};
  args.insert(args.end(), s.benchmark_flags.begin(), s.benchmark_flags.end());
  return args;
}

void initialize_google_benchmark(const BenchSettings& s) {
  // Google Benchmark keeps argv[0] for its context ("executable"): the strings must outlive it.
  static std::vector<std::string> args;
  args = benchmark_argv(s);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  benchmark::Initialize(&argc, argv.data());
  // Initialize removes the flags it knows; anything left is not a Google Benchmark flag.
  if (argc > 1) throw InputError(fmt::format("unknown Google Benchmark flag '{}'; see --benchmark_help... "
                                             "`opcert bench --help` lists the flags that pass through", argv[1]));
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
  initialize_google_benchmark(s);

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

  BenchEngine engine(jobs, s, stream);
  std::size_t registered = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (is_kept[i]) continue;
    benchmark::RegisterBenchmark(jobs[i].name.c_str(), [&engine, i](benchmark::State& st) { engine.measure(st, i); })
        ->UseManualTime()
        ->Iterations(1)  // one iteration is one sampling (BenchEngine::sample)
        ->Unit(benchmark::kMicrosecond);
    ++registered;
  }

  GoogleBenchmarkReporter reporter(
      jobs, [&](const nlohmann::json& context) { report.bench_context = context; },
      [&](std::size_t i) { stream.benchmark_done(bench_record(jobs[i], jobs)); });
  if (registered > 0) benchmark::RunSpecifiedBenchmarks(&reporter);
  engine.release();
  report.bench_settings["conditions"] =
      engine.monitored() ? engine.monitor().description()
                         : nlohmann::json{{"source", nullptr}, {"unavailable", "no CUDA device was benchmarked"}};
  if (report.bench_context.is_object()) report.bench_context["measurement_conditions"] = report.bench_settings["conditions"];
  benchmark::ClearRegisteredBenchmarks();
  benchmark::Shutdown();

  int exit_code = kExitOk;
  for (const auto& job : jobs)
    if (!job.peer && (!job.error.empty() || (job.check && gates(job.check->status)))) exit_code = kExitCheckFailed;
  for (const auto& r : skipped)
    if (r.status == Status::kError) exit_code = kExitCheckFailed;

  for (const auto& job : jobs)
    if (job.check) report.results.push_back(*job.check);
  for (auto& r : skipped) report.results.push_back(std::move(r));
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
