#include "bench/bench_worker.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "bench/bench_job.h"
#include "bench/cache_flusher.h"
#include "bench/google_benchmark_reporter.h"
#include "bench/gpu_monitor.h"
#include "bench/roofline.h"
#include "bench/sample_timer.h"
#include "model/input_error.h"
#include "session/execution/memory_admission.h"
#include "session/execution/op_call_builder.h"
#include "session/execution/prepared_case.h"

namespace opcert {
namespace {

// Launches after the check and before the samples: first-touch costs, lazy initialisation and
// clock ramp-up stay out of the figures. At least policy.warmup_launches, more until
// policy.warmup_s have passed (--benchmark_min_warmup_time). Returns the mean seconds a launch took
// (each alone, so the host's issue time included: an upper bound for sizing the groups below).
template <class Launch>
double warm_up(SampleTimer& timer, const SamplingPolicy& policy, Launch launch) {
  double warm = 0.0;
  int64_t launches = 0;
  for (; launches < policy.warmup_launches || warm < policy.warmup_s; ++launches) warm += timer.time(launch);
  return launches > 0 ? warm / static_cast<double>(launches) : 0.0;
}

// How many launches are queued back to back at a time (SampleTimer::queue): about a millisecond of
// the device's work, so that while the host reads one group's events and the SM clock the device
// runs the next; at least 2, at most 128 (twice that many events in flight).
int64_t launches_per_group(double launch_s) {
  if (!(launch_s > 0)) return 2;
  const double wanted = std::ceil(1e-3 / launch_s);
  return static_cast<int64_t>(std::clamp(wanted, 2.0, 128.0));
}

opcert_device first_device(const BackendHandle& backend) { return backend.devices().at(0).device; }

}  // namespace

// Holds the job being timed, and the timer, flusher and GPU monitor the worker keeps across jobs.
class BenchEngine {
 public:
  BenchEngine(BackendHandle& backend, const BenchWorkerSettings& s) : backend_(backend), settings_(s) {}

  // One Google Benchmark iteration: one sampling of the job, its launches timed one by one until
  // the policy stops it; the iteration's time is their mean.
  void measure(benchmark::State& state, BenchJob& job, const BenchRequest& request,
               const std::function<ExecutionOptions(const Case&)>& options_for) {
    if (!activate(job, options_for)) {
      state.SkipWithError(job.error.c_str());
      return;
    }
    try {
      SampleTimer& timer = timer_for();
      CacheFlusher* flusher = settings_.cold_l2 ? &flusher_for(job) : nullptr;
      for (auto _ : state) {
        Sampled sampled = sample(timer, flusher);
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
    if (job.latest_mean_s > 0) set_counters(state, job, request, job.latest_mean_s);
    if (job.check) state.SetLabel(std::string(status_name(job.check->status)));
  }

  void release() {
    active_.reset();
    active_copy_.reset();
    activated_ = false;
  }

  /// The GPU monitor's description when a CUDA device was timed; else null.
  nlohmann::json conditions() const { return monitor_ ? monitor_->description() : nlohmann::json(); }

 private:
  // Drops what a sampling left queued when it ends, stopped or failed.
  struct DropQueued {
    SampleTimer& timer;
    ~DropQueued() { timer.drop_queued(); }
  };

  struct Sampled {
    Sampling sampling;
    double mean_s = 0.0;  ///< the mean seconds per launch: the iteration's time
  };

  // Times launches of the active job in batches until the sampling policy stops, reading the GPU's
  // conditions just before the first and just after the last, and its SM clock as each batch closes.
  Sampled sample(SampleTimer& timer, CacheFlusher* flusher) {
    const SamplingPolicy& policy = settings_.sampling;
    const opcert_device device = first_device(backend_);
    Sampling sampling;
    sampling.conditions.start = read_conditions(device);
    BatchMeans batches = batch_means_for(policy);
    const auto begin = std::chrono::steady_clock::now();
    StopReason stop = StopReason::kContinue;
    const auto take = [&](double seconds) {
      batches.add(seconds);
      if (batches.batch_full()) batches.close_batch(sm_clock(device));
      stop = should_stop(policy, batches, std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
    };
    if (flusher) {
      // Cold: each launch after a flush the host waits for, so each is timed alone (its figure
      // carries the host's issue time: docs/PERFORMANCE.md, "How a launch is timed").
      while (stop == StopReason::kContinue) {
        flusher->flush();
        take(timer.time([&] { launch_active(); }));
      }
    } else {
      // Warm: groups queued back to back, the next queued before the last is read. The first
      // launch of a sampling follows an idle device, and its time the host's issue: dropped.
      // Each later group is issued while the one before runs: its issue time against its device
      // time says whether the host kept ahead (host_share, bench/sample_timer.h).
      const int64_t group = launches_per_group(launch_estimate_s_);
      const DropQueued drop{timer};
      timer.queue([&] { launch_active(); }, group);
      bool first_group = true;
      double issue_s = 0.0, device_s = 0.0;
      while (stop == StopReason::kContinue) {
        timer.queue([&] { launch_active(); }, group);
        const SampleTimer::Collected done = timer.collect();
        for (std::size_t i = first_group ? 1 : 0; i < done.seconds.size() && stop == StopReason::kContinue; ++i)
          take(done.seconds[i]);
        if (!first_group) {
          issue_s += done.issue_s;
          for (double s : done.seconds) device_s += s;
        }
        first_group = false;
      }
      // A copy baseline's copy is synchronous (the ABI's): each waits, so its share says nothing.
      if (timer.method() == "events" && !active_copy_ && device_s > 0) sampling.host_share = issue_s / device_s;
    }
    sampling.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    sampling.conditions.end = read_conditions(device);
    sampling.samples = batches.samples();
    sampling.noise = batches.relative_standard_error();
    sampling.batches = batches.kept_batches();
    sampling.throttled_batches = batches.dropped_batches();
    sampling.stopped_by = stop_reason_name(stop);
    return {std::move(sampling), batches.mean()};
  }

  // The SM clock now, in MHz; none off a CUDA device or without NVML.
  std::optional<double> sm_clock(opcert_device device) {
    const auto reading = read_conditions(device);
    if (!reading || !reading->sm_clock_mhz) return std::nullopt;
    return static_cast<double>(*reading->sm_clock_mhz);
  }

  // A reading of a CUDA device's clocks and power; nothing for other devices. NVML is loaded at
  // the first CUDA benchmark.
  std::optional<GpuReading> read_conditions(opcert_device device) {
    if (device.type != OPCERT_DEVICE_CUDA) return std::nullopt;
    if (!monitor_) monitor_ = std::make_unique<GpuMonitor>();
    return monitor_->read(device.index);
  }

  void launch_active() {
    if (active_copy_)
      active_copy_->flush();
    else
      active_->launch();
  }

  // A copy baseline: two device buffers of half the case's bytes, one copied over the other.
  bool activate_copy(BenchJob& job) {
    try {
      const auto half = static_cast<uint64_t>(std::max(job.work.bytes / 2, 1.0));
      active_copy_ = std::make_unique<CacheFlusher>(backend_, first_device(backend_), half);
      SampleTimer& timer = timer_for();
      job.timing_method = timer.method();
      launch_estimate_s_ = warm_up(timer, settings_.sampling, [&] { active_copy_->flush(); });
    } catch (const std::exception& e) {
      job.error = e.what();
      active_copy_.reset();
      return false;
    }
    activated_ = true;
    return true;
  }

  // Prepares the job's case, checks it once, warms it up; once per job (its repetitions reuse it).
  bool activate(BenchJob& job, const std::function<ExecutionOptions(const Case&)>& options_for) {
    if (activated_) return true;
    if (!job.error.empty()) return false;
    if (job.copy_baseline) return activate_copy(job);
    const Case& c = *job.test_case;
    CaseResult early;
    auto prepared = PreparedCase::prepare(backend_, job.impl_key, c, options_for(c), early);
    if (!prepared) {
      job.error = early.message;
      job.check = std::move(early);
      return false;
    }
    try {
      if (!job.check) {
        prepared->launch();
        job.check = prepared->check();
        job.published_bytes = prepared->published_bytes();
        // The record names what was timed: the call as the backend says once it has run it (the
        // answer before the run may name a first choice the backend then had to leave).
        if (std::string ran = prepared->library_call(); !ran.empty()) job.library_call = std::move(ran);
        if (job.check->status == Status::kError) {
          job.error = job.check->message;
          return false;
        }
      }
      SampleTimer& timer = timer_for();
      job.timing_method = timer.method();
      launch_estimate_s_ = warm_up(timer, settings_.sampling, [&] { prepared->launch(); });
    } catch (const std::exception& e) {
      job.error = e.what();
      if (!job.check) {
        CaseResult r = blank_result(backend_.name(), job.impl_key, c);
        r.status = Status::kError;
        r.message = e.what();
        job.check = std::move(r);
      }
      return false;
    }
    active_ = std::move(prepared);
    activated_ = true;
    return true;
  }

  SampleTimer& timer_for() {
    if (!timer_) timer_ = std::make_unique<SampleTimer>(backend_, first_device(backend_));
    return *timer_;
  }

  CacheFlusher& flusher_for(const BenchJob& job) {
    if (!flusher_) {
      const opcert_device device = first_device(backend_);
      std::optional<uint64_t> cache;
      if (job.platform && job.platform->peaks.cache_mib)
        cache = static_cast<uint64_t>(*job.platform->peaks.cache_mib * 1024 * 1024);
      flusher_ = std::make_unique<CacheFlusher>(backend_, device, flush_bytes_for(device, cache));
    }
    return *flusher_;
  }

  // The peer's and the copy's means come with the request: they were timed in other jobs.
  static void set_counters(benchmark::State& state, const BenchJob& job, const BenchRequest& request, double mean) {
    if (job.work.flops > 0) state.counters["tflops"] = job.work.flops / mean / 1e12;
    if (job.work.bytes > 0) state.counters["gbps"] = job.work.bytes / mean / 1e9;
    if (job.platform)
      if (const auto pct = roofline_percent(job.work, job.platform->peaks, mean)) state.counters["pct_peak"] = *pct;
    if (request.peer_mean_s > 0) state.counters["speedup_vs_peer"] = request.peer_mean_s / mean;
    if (request.copy_mean_s > 0) state.counters["pct_of_copy"] = 100 * request.copy_mean_s / mean;
  }

  BackendHandle& backend_;
  const BenchWorkerSettings& settings_;
  std::unique_ptr<PreparedCase> active_;
  std::unique_ptr<CacheFlusher> active_copy_;  // the active job is a copy baseline
  bool activated_ = false;
  double launch_estimate_s_ = 0.0;  // the active job's warm-up mean
  std::unique_ptr<SampleTimer> timer_;
  std::unique_ptr<CacheFlusher> flusher_;
  std::unique_ptr<GpuMonitor> monitor_;
};

void initialize_google_benchmark(const std::vector<std::string>& flags) {
  // Google Benchmark keeps argv[0] for its context ("executable"): the strings must outlive it.
  static std::vector<std::string> args;
  args = {"opcert bench"};
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  benchmark::Initialize(&argc, argv.data());
  // Initialize removes the flags it knows; anything left is not a Google Benchmark flag.
  if (argc > 1) throw InputError(fmt::format("unknown Google Benchmark flag '{}'; see --benchmark_help... "
                                             "`opcert bench --help` lists the flags that pass through", argv[1]));
}

BenchWorker::BenchWorker(BackendHandle& backend, const PlatformCatalog* platforms, BenchWorkerSettings settings,
                         std::function<ExecutionOptions(const Case&)> options_for)
    : backend_(backend),
      platforms_(platforms),
      settings_(std::move(settings)),
      options_for_(std::move(options_for)),
      engine_(std::make_unique<BenchEngine>(backend_, settings_)) {
  initialize_google_benchmark(settings_.benchmark_flags);
}

BenchWorker::~BenchWorker() = default;

WorkerAnswer BenchWorker::support(const JobRequest& request, const Case& c) {
  CaseResult r = blank_result(backend_.name(), request.impl_key, c);
  BenchMeasurement m;
  m.checked = true;  // the verdict, unless the job is to be timed
  const ExecutionOptions options = options_for_(c);
  try {
    const DeviceDescription& device = backend_.devices().at(static_cast<std::size_t>(options.device_index));
    OpCallBuilder call(c, request.impl_key, device.device);
    const SupportAnswer answer = backend_.query(call.call());
    m.library_call = answer.library_call;
    const std::string too_big =
        answer.supported ? admission_refusal(case_footprint(c), memory_limits(device, options.max_memory)) : "";
    if (answer.supported && too_big.empty()) {
      m.checked = false;
    } else {
      r.status = Status::kSkipped;
      r.skip_reason = !too_big.empty() ? skip_reason::kTooBig : skip_reason::kDeclined;
      r.message = !too_big.empty() ? too_big : answer.reason.empty() ? "unsupported" : answer.reason;
    }
  } catch (const std::exception& e) {
    r.status = Status::kError;
    r.message = fmt::format("query_op failed: {}", e.what());
  }
  return {std::move(r), bench_measurement_json(m)};
}

WorkerAnswer BenchWorker::measure(const JobRequest& request, const Case& c) {
  const BenchRequest bench = bench_request_from_json(request.bench);
  if (bench.support_only) return support(request, c);
  std::vector<BenchJob> jobs(1);  // the reporter's view: this one job
  BenchJob& job = jobs.front();
  job.backend = &backend_;
  job.impl_key = request.impl_key;
  job.test_case = &c;
  job.copy_baseline = bench.copy_baseline;
  job.name = c.id + "/" + request.impl_key;
  job.platform = platforms_ && !bench.platform.empty() ? platforms_->find(bench.platform) : nullptr;
  try {
    job.work = work_model(c);
  } catch (const std::exception& e) {
    job.error = fmt::format("no work model: {}", e.what());
  }

  benchmark::RegisterBenchmark(job.name.c_str(),
                               [&](benchmark::State& st) { engine_->measure(st, job, bench, options_for_); })
      ->UseManualTime()
      ->Iterations(1)  // one iteration is one sampling (BenchEngine::sample)
      ->Unit(benchmark::kMicrosecond);
  GoogleBenchmarkReporter reporter(jobs, nullptr, nullptr);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  engine_->release();

  BenchMeasurement m;
  m.checked = job.check.has_value();
  m.error = job.error;
  m.timing_method = job.timing_method;
  m.library_call = job.library_call;
  m.published_bytes = job.published_bytes;
  m.latest_mean_s = job.latest_mean_s;
  m.runs = std::move(job.runs);
  m.conditions = engine_->conditions();
  return {job.check ? std::move(*job.check) : blank_result(backend_.name(), job.impl_key, c),
          bench_measurement_json(m)};
}

}  // namespace opcert
