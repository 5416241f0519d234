#include "bench/bench_runner.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "bench/bench_job.h"
#include "bench/bench_lanes.h"
#include "bench/bench_plan.h"
#include "bench/bench_ranks.h"
#include "bench/bench_resume.h"
#include "bench/bench_worker.h"
#include "bench/bench_workers.h"
#include "bench/google_benchmark_reporter.h"
#include "bench/roofline.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "ranks/rank_agreement.h"
#include "reports/alignment.h"
#include "reports/file_sinks.h"
#include "reports/json_report_writer.h"
#include "reports/output_sets.h"
#include "session/job/exit_rule.h"
#include "session/job/job_record.h"
#include "session/job/job_sitting.h"
#include "session/job/run_header.h"
#include "session/job/run_paths.h"
#include "session/job/stop_request.h"
#include "session/planning/job_list.h"
#include "session/planning/job_shares.h"

namespace opcert {
namespace {

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
          {"warmup_launches", p.warmup_launches},
          {"batch_s", p.batch_s},
          {"min_batches", p.min_batches},
          {"drift_factor", p.drift_factor},
          {"throttle_fraction", p.throttle_fraction}};
}

// The report's header and the job as job.json records it: what makes two sittings' figures
// comparable is part of it (the bench settings, --max-memory, the machine).
std::pair<RunReport, JobRecord> bench_header_and_job(const std::vector<RunTarget>& targets, const Suite& suite,
                                                     const BenchSettings& s, const nlohmann::json& machine,
                                                     const std::vector<std::optional<int>>& lanes) {
  RunReport report = run_header(kBenchReportKind, targets, suite, s);
  report.bench_settings = {{"cold_l2", s.cold_l2},
                           {"copy_baseline", s.copy_baseline},
                           {"benchmark_flags", s.benchmark_flags},
                           {"sampling", sampling_json(s.sampling)}};
  nlohmann::json fields{
      {"bench_settings", report.bench_settings}, {"max_memory", s.max_memory}, {"machine", machine_identity(machine)}};
  if (s.devices) {  // a bench resumed on other devices, or shared otherwise, is another job
    nlohmann::json indices = nlohmann::json::array();
    for (const auto& d : lanes) indices.push_back(*d);
    fields["devices"] = indices;
    fields["device_mode"] = device_mode_name(s.device_mode);
  }
  JobRecord job = job_record(report, s, fields);
  return {std::move(report), std::move(job)};
}

// What the sitting holds of each job: true for one kept from the sitting resumed (its record and
// check filled in from it) or measured in this one.
std::vector<char> keep(std::vector<BenchJob>& jobs, const std::optional<KeptBenchmarks>& kept) {
  std::vector<char> is_kept(jobs.size(), 0);
  if (!kept) return is_kept;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto record = kept->records.find(kept_key(jobs[i]));
    if (record == kept->records.end()) continue;
    is_kept[i] = 1;
    jobs[i].error = record->second.error;
    if (const auto check = kept->checks.find(check_identity(jobs[i])); check != kept->checks.end())
      jobs[i].check = check->second;
  }
  return is_kept;
}

// Adds bench's outputs: the table has a row for each job still to measure.
void add_outputs(ResultStream& stream, const std::vector<BenchJob>& jobs, const std::vector<char>& is_kept,
                 const BenchSettings& s, bool resumed) {
  std::vector<PlannedRow> rows;
  BenchTableLayout layout{
      .copy_column = s.copy_baseline, .clocks_column = false, .device_column = s.devices.has_value(), .peer = s.peer};
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (is_kept[i]) continue;
    rows.push_back({jobs[i].test_case->op, jobs[i].test_case->id, jobs[i].impl_key});
    layout.clocks_column |= jobs[i].backend->devices().at(0).device.type == OPCERT_DEVICE_CUDA;
  }
  add_bench_outputs(stream, s.out_dir, rows, layout, resumed);
}

// The measurement conditions the workers saw, into the report's settings and context.
void record_conditions(RunReport& report, const std::vector<std::unique_ptr<BenchWorkers>>& workers) {
  nlohmann::json conditions;
  for (const auto& w : workers)
    if (conditions.is_null()) conditions = w->conditions();
  report.bench_settings["conditions"] =
      !conditions.is_null() ? conditions
                            : nlohmann::json{{"source", nullptr}, {"unavailable", "no CUDA device was benchmarked"}};
  if (report.bench_context.is_object()) report.bench_context["measurement_conditions"] = report.bench_settings["conditions"];
}

// The report's results (every check, then the verdicts) and benchmarks (each job held, kept or
// measured), and the exit code they give.
int fill_report(RunReport& report, const BenchPlan& plan, const std::vector<char>& held,
                const std::optional<KeptBenchmarks>& kept, const std::vector<std::optional<BenchRecord>>& streamed,
                const std::vector<RunTarget>& targets, const BenchSettings& s, bool interrupted, bool rank_lost) {
  const std::vector<BenchJob>& jobs = plan.jobs;
  for (const auto& job : jobs)
    if (job.check) report.results.push_back(*job.check);
  for (const auto& r : plan.verdicts) report.results.push_back(r);
  const bool timing_failed =
      std::any_of(jobs.begin(), jobs.end(), [](const BenchJob& j) { return !j.peer && !j.error.empty(); });
  const int exit_code =
      session_exit_code(report.results, peer_only_backends(targets), interrupted, timing_failed || rank_lost);
  fill_alignment(report.results, s.peer);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!held[i]) continue;  // not reached before a stop
    const BenchRecord* kept_record = nullptr;
    if (kept)
      if (const auto r = kept->records.find(kept_key(jobs[i])); r != kept->records.end()) kept_record = &r->second;
    if (i < streamed.size() && streamed[i]) report.benchmarks.push_back(*streamed[i]);  // another rank's, or as streamed
    else report.benchmarks.push_back(kept_record ? *kept_record : bench_record(jobs[i], jobs));
    // Google Benchmark numbers the families it ran, from 0 in each sitting: number them as one.
    for (BenchRun& run : report.benchmarks.back().runs) run.family_index = static_cast<int64_t>(i);
  }
  report.complete = !interrupted && !rank_lost;
  return exit_code;
}

}  // namespace

bool is_reserved_benchmark_flag(const std::string& flag) {
  for (const char* reserved : {"--benchmark_out=", "--benchmark_out_format", "--benchmark_format", "--benchmark_list_tests"})
    if (flag.rfind(reserved, 0) == 0) return true;
  return flag == "--benchmark_out";
}

namespace {

// Rank 0 across ranks: the receivers of the other ranks' benchmarks, and what they and this rank's
// lanes have measured, in job order (the streamed records, for the rewrite in suite order).
struct RankShare {
  std::unique_ptr<RankMerger> merger;
  std::vector<int> owners;  // of each unit
  std::vector<std::optional<BenchRecord>> streamed;
};

// One sitting; `agreed` is set once the ranks (if any) agreed that all could set it up.
int bench_sitting(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s, World* world,
                  bool& agreed) {
  // The machine first: its GPUs' names match the platform whose production keys are timed.
  const nlohmann::json machine = capture_environment(s.environment);
  std::string choice;
  const std::vector<Job> planned = ordered_bench_jobs(targets, suite, s, machine.value("gpus", nlohmann::json()), choice);
  const std::vector<std::optional<int>> chosen = bench_lane_devices(targets, s);  // a bad index: before anything runs
  const std::vector<std::optional<int>> lanes = rank_lane_devices(chosen, world);
  if (world && world->rank() != 0)
    return bench_as_member(*world, targets, suite, s, planned, chosen, lanes, machine.value("gpus", nlohmann::json()),
                           agreed);
  prepare_out_dir(s.out_dir);
  initialize_google_benchmark(s.benchmark_flags);  // a bad flag is bad usage before any worker starts
  // Not a structured binding: a lambda below captures the report (clang 14 refuses a binding there).
  auto header_and_job = bench_header_and_job(targets, suite, s, machine, chosen);
  RunReport& report = header_and_job.first;
  const JobSitting sitting =
      start_sitting(report, std::move(header_and_job.second), s.out_dir, s.resume, {kMeasurementsJsonlFileName, "measurements", "bench"});

  std::vector<std::unique_ptr<BenchWorkers>> workers;
  const uint64_t shared_bytes = BenchWorkers::shared_host_bytes(targets, lanes.size(), world ? world->local_size() : 1);
  for (const auto& device : lanes) workers.push_back(std::make_unique<BenchWorkers>(suite, s, device, shared_bytes));
  // What is timed is asked on the first lane's device; each then places every job on every lane.
  BenchPlan plan = plan_benchmarks(planned, targets, suite, s, *workers.front(), machine.value("gpus", nlohmann::json()));
  plan.jobs = place_bench_jobs(std::move(plan.jobs), lanes, s.device_mode);
  // --resume: the cases an earlier sitting measured whole keep their records and checks.
  const std::optional<KeptBenchmarks> kept =
      sitting.resumed() ? std::optional(kept_benchmarks(s.out_dir, plan.jobs)) : std::nullopt;
  std::vector<char> held = keep(plan.jobs, kept);
  const std::vector<BenchUnit> units = bench_units(plan.jobs);
  std::vector<char> skip = held;  // what this process's lanes leave: held, or another rank's
  RankShare ranks;
  if (world) {
    ranks.merger = std::make_unique<RankMerger>(*world, bench_rank_silence(s));
    (void)ranks.merger->gather_hellos(kRankStartupWait, bench_rank_setup(suite, s, plan.jobs));
    std::vector<int> lanes_by_rank{static_cast<int>(lanes.size())};
    for (int r = 1; r < world->size(); ++r) lanes_by_rank.push_back(ranks.merger->lanes_of(r).at(0));
    ranks.owners = deal_units(units, held, lanes_by_rank);
    ranks.streamed.resize(plan.jobs.size());
  }

  ResultStream stream;
  open_outputs(sitting, s.out_dir, [&] {
    if (kept) rewrite_kept_files(s.out_dir, *kept);
    add_outputs(stream, plan.jobs, held, s, kept.has_value());
  });
  if (world) {
    agreed = true;
    if (!agree_on_setup(*world, nullptr)) throw std::runtime_error("the ranks did not all start within 120 s");
    ranks.owners = share_job_owners(*world, ranks.owners, units.size());
    report.ranks = world->size();
    report.launcher = world->launcher();
  }
  const std::vector<BenchUnit> mine = units_of_rank(units, ranks.owners, 0, skip);
  stream.run_started(report);
  if (!choice.empty()) stream.note("opcert: " + choice);
  if (kept)
    stream.note(fmt::format("opcert: resuming {}: {} case(s) measured whole kept ({} benchmark(s)), {} benchmark(s) to run",
                            s.out_dir.string(), kept->cases, kept->records.size(),
                            std::count(held.begin(), held.end(), 0)));
  for (const auto& r : plan.verdicts) stream.case_done(r, false);  // judged afresh in every sitting

  std::mutex held_mutex;  // held and the report's context, from the lanes and the receivers
  // A benchmark timed, here or on another rank: its check and record into the outputs.
  const auto timed = [&](std::size_t i, const BenchRecord& record) {
    const std::lock_guard lock(held_mutex);
    held[i] = 1;
    if (world) ranks.streamed[i] = record;
    if (plan.jobs[i].check) stream.case_done(*plan.jobs[i].check, plan.jobs[i].peer);
    if (record.runs.empty() && record.error.empty()) return;  // left out by --benchmark_filter
    if (!report.bench_context.is_object()) report.bench_context = google_benchmark_context();
    stream.benchmark_done(record);
  };
  if (world) {
    // Each benchmark names itself: its name, and whether it is the peer's, find its job.
    std::map<std::tuple<std::string, std::string, bool>, std::size_t> job_of;
    for (std::size_t i = 0; i < plan.jobs.size(); ++i)
      job_of.emplace(std::make_tuple(plan.jobs[i].backend->name(), plan.jobs[i].name, plan.jobs[i].copy_baseline), i);
    ranks.merger->start([](CaseResult, bool) {}, [&, job_of](BenchRecord record, std::optional<CaseResult> check) {
      const auto found = job_of.find({record.backend, record.name, record.copy_baseline});
      if (found == job_of.end()) throw std::runtime_error("a benchmark not planned: " + record.name);
      BenchJob& j = plan.jobs[found->second];
      j.check = std::move(check);
      j.error = record.error;
      j.device = record.device;
      j.rank = record.rank;
      timed(found->second, record);
    });
  }
  // The receivers call `timed`, which holds the stream, the report and the jobs: should anything
  // below throw, they are joined before those are destroyed.
  struct JoinMerger {
    std::unique_ptr<RankMerger>& merger;
    ~JoinMerger() { merger.reset(); }
  } join_merger{ranks.merger};

  install_stop_handlers();
  bool interrupted = !time_units(plan.jobs, mine, skip, lanes, workers, [&](std::size_t i) {
    if (world) tag_rank(plan.jobs[i], 0);
    timed(i, bench_record(plan.jobs[i], plan.jobs));
  });
  std::vector<std::string> lost_ranks;
  if (ranks.merger) {
    if (interrupted || stop_requested()) ranks.merger->stop_after(RankMerger::kStopGrace);
    lost_ranks = ranks.merger->finish(s.out_dir);
    for (const auto& line : lost_ranks) stream.note("opcert: " + line);
  }
  interrupted = interrupted || stop_requested();
  for (const auto& lane : workers)
    for (const std::string& note : lane->shutdown()) stream.note("opcert: " + note);
  record_conditions(report, workers);
  benchmark::Shutdown();
  if (interrupted || !lost_ranks.empty())
    stream.note(fmt::format("opcert: {}: stopped after {} of {} benchmarks; writing what was measured (the same command "
                            "with --resume {} goes on from here)",
                            interrupted ? stop_signal_name() : "a rank was lost", std::count(held.begin(), held.end(), 1),
                            plan.jobs.size(), s.out_dir.string()));
  if (world) {  // the ranks' lines came as they were timed: in the suite's order, as one process writes them
    std::vector<BenchRecord> records;
    std::vector<CaseResult> results(plan.verdicts);
    for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
      if (!held[i]) continue;
      if (plan.jobs[i].check) results.push_back(*plan.jobs[i].check);
      if (ranks.streamed[i]) records.push_back(*ranks.streamed[i]);
      else if (kept && kept->records.contains(kept_key(plan.jobs[i]))) records.push_back(kept->records.at(kept_key(plan.jobs[i])));
    }
    rewrite_in_suite_order(s.out_dir, records, results);
  }
  const int exit_code = fill_report(report, plan, held, kept, ranks.streamed, targets, s, interrupted, !lost_ranks.empty());
  const int exit_with = finish_sitting(stream, report, s.environment, exit_code);
  remove_stop_handlers();
  if (world) {
    ranks.merger.reset();
    if (!lost_ranks.empty()) world->abort_job(exit_with);  // a lost rank may hang: end the job
    return share_exit_code(*world, exit_with);
  }
  return exit_with;
}

}  // namespace

int run_benchmarks(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s) {
  World* world = s.world != nullptr && s.world->size() > 1 ? s.world : nullptr;
  bool agreed = false;
  try {
    return bench_sitting(targets, suite, s, world, agreed);
  } catch (...) {
    // A rank that fails before the ranks agreed tells them: every rank ends at once (this one
    // with its own error, rethrown there), none waits for the others.
    if (world && !agreed) (void)agree_on_setup(*world, std::current_exception());
    throw;
  }
}

}  // namespace opcert
