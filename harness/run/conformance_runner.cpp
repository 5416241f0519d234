#include "run/conformance_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "model/exit_codes.h"
#include "model/input_error.h"
#include "ranks/rank_agreement.h"
#include "reports/alignment.h"
#include "reports/output_sets.h"
#include "reports/results_jsonl.h"
#include "run/job_owners.h"
#include "session/rank_loop/rank_merge.h"
#include "run/worker_lanes.h"
#include "session/job/exit_rule.h"
#include "session/job/job_record.h"
#include "session/job/job_sitting.h"
#include "session/job/run_header.h"
#include "session/job/run_paths.h"
#include "session/job/stop_request.h"
#include "session/planning/job_list.h"
#include "session/planning/job_shares.h"
#include "session/worker/worker_session.h"
#include "util/remove_tree.h"

namespace opcert {
namespace {

using Clock = std::chrono::steady_clock;

// How long a rank may be silent: a case's backend part ends within its timeout and the harness's
// parts before and after it within their limit each, a worker starts within its own.
std::chrono::milliseconds rank_silence_limit(const RunSettings& s) {
  const auto startup = std::max<std::chrono::milliseconds>(std::chrono::seconds(120), s.timeout);
  return s.timeout + 2 * harness_phase_limit(s.timeout) + startup + std::chrono::seconds(60);
}

// The lanes of one target, in lane order.
std::vector<Lane> lanes_of(const std::vector<Lane>& lanes, std::size_t target) {
  std::vector<Lane> of;
  for (const Lane& l : lanes)
    if (l.target == target) of.push_back(l);
  return of;
}

// Results in a stable order whatever order (and rank) they finished in: target by target; then
// with each, by rank and device, each lane's results in job order; spread, in job order (the
// suite's), whichever device ran them.
void order_results(std::vector<CaseResult>& results, const std::vector<RunTarget>& targets, const std::vector<Job>& jobs,
                   const Suite& suite, DeviceMode mode) {
  std::map<std::string, std::size_t> target_of;
  for (std::size_t t = 0; t < targets.size(); ++t) target_of[targets[t].backend->name()] = t;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> job_of;
  for (std::size_t j = 0; j < jobs.size(); ++j)
    job_of.emplace(std::make_tuple(jobs[j].backend, jobs[j].impl_key, suite.cases[jobs[j].case_index].id), j);
  const auto key = [&](const CaseResult& r) {
    const auto t = target_of.find(r.backend);
    const auto j = job_of.find({r.backend, r.impl_key, r.case_id});
    const auto target = static_cast<int64_t>(t == target_of.end() ? targets.size() : t->second);
    const auto job = static_cast<int64_t>(j == job_of.end() ? jobs.size() : j->second);
    const int64_t rank = r.rank.value_or(0);
    const int64_t device = r.device ? r.device->index : -1;
    return mode == DeviceMode::kSpread ? std::array<int64_t, 4>{target, job, rank, device}
                                       : std::array<int64_t, 4>{target, rank, device, job};
  };
  std::stable_sort(results.begin(), results.end(),
                   [&](const CaseResult& a, const CaseResult& b) { return key(a) < key(b); });
}

// Every rank learns whether all could set up the run, so that a bad --out ends all ranks at once.
void agree_or_end(World& world, std::exception_ptr setup_error) {
  if (!agree_on_setup(world, setup_error)) throw std::runtime_error("the ranks did not all start within 120 s");
}

// A private folder for the worker logs of a rank other than 0: they travel to rank 0 at the end.
std::filesystem::path private_log_dir(int rank) {
  try {
    return make_private_temp_dir(fmt::format("opcert-rank{}-", rank));
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("rank {}: no folder for its worker logs: {}", rank, e.what()));
  }
}

// What every rank must share for rank 0's report to speak for its results: the suite file, the
// seed and selection, the platform and its configs' texts, the golden set's manifest.
// The job count and the device mode too: rank 0 shares the jobs out by their index (spread).
nlohmann::json run_setup(const Suite& suite, const RunSettings& s, std::size_t jobs) {
  const auto golden = s.environment.libraries.find("golden_set");
  return {{"suite", suite.sha256},  {"seed", s.seed}, {"filter", s.filter}, {"implementations", s.impl_selection},
          {"platform", s.platform}, {"platform configs", platform_config_digests(s)},
          {"golden set", golden == s.environment.libraries.end() ? "" : golden->get<std::string>().substr(0, 64)},
          {"jobs", jobs}, {"device mode", device_mode_name(s.device_mode)}};
}

// How many results this process's lanes give, target by target, for what each runs of `owners`.
std::size_t results_to_come(const std::vector<Lane>& lanes, const std::vector<RunTarget>& targets,
                            const std::vector<Job>& jobs, const Suite& suite, const RunSettings& s,
                            const std::set<std::string>& finished) {
  std::size_t n = 0;
  for (std::size_t t = 0; t < targets.size(); ++t)
    n += lane_result_count(lanes_of(lanes, t), jobs_to_run(jobs, suite, t, {}, 0, finished).size(), s.device_mode);
  return n;
}

// Spread across ranks: who runs each job, from every rank's lanes (rank 0's and the hellos').
std::vector<int> plan_owners(const std::vector<Job>& jobs, const Suite& suite, std::size_t targets,
                             const std::vector<Lane>& lanes, const RankMerger& merger, int ranks,
                             const std::set<std::string>& finished) {
  std::vector<std::vector<int>> lanes_by_rank{lanes_per_target(lanes, targets)};
  for (int r = 1; r < ranks; ++r) lanes_by_rank.push_back(merger.lanes_of(r));
  std::vector<std::size_t> job_targets;
  std::vector<bool> pending;
  for (const Job& j : jobs) {
    job_targets.push_back(j.backend_index);
    pending.push_back(!finished.contains(result_identity(j.backend, j.impl_key, suite.cases[j.case_index].id, std::nullopt)));
  }
  return spread_owners(job_targets, pending, lanes_by_rank);
}

// A rank other than 0: runs its lanes, sends every result to rank 0, and takes rank 0's exit code.
int run_as_member(World& world, const std::vector<RunTarget>& targets, const std::vector<Job>& jobs,
                  const std::vector<Lane>& lanes, const Suite& suite, const RunSettings& s) {
  const bool spread = s.device_mode == DeviceMode::kSpread;
  RankUplink uplink(world, rank_silence_limit(s));
  uplink.hello(spread ? 0 : results_to_come(lanes, targets, jobs, suite, s, {}), run_setup(suite, s, jobs.size()),
               lanes_per_target(lanes, targets.size()));
  agree_or_end(world, nullptr);
  const std::vector<int> owners = spread ? share_job_owners(world, {}, jobs.size()) : std::vector<int>{};
  const std::filesystem::path log_dir = private_log_dir(world.rank());
  const LaneLogs logs{log_dir.string(), fmt::format("rank{}/", world.rank())};
  const int rank = world.rank();
  const LaneEvents events{[](const CaseStart&) {},
                          [&](CaseResult r, bool peer) {
                            r.rank = rank;
                            uplink.result(r, peer);
                          },
                          [](const std::string& line) { fmt::print(stderr, "opcert: {}\n", line); }};
  install_stop_handlers();
  const bool complete = run_lanes(lanes, targets, jobs, todo_by_target(jobs, suite, targets.size(), owners, rank, {}),
                                  suite, s, logs, events);
  uplink.done(complete, log_dir);
  remove_tree(log_dir);
  remove_stop_handlers();
  return share_exit_code(world, kExitOk);
}

// The job as job.json records it: what run_setup holds, the backends, and where each lane runs.
JobRecord conformance_job(const RunReport& header, const std::vector<RunTarget>& targets, const std::vector<Lane>& lanes,
                          const RunSettings& s) {
  nlohmann::json placed = nlohmann::json::array();
  for (const Lane& l : lanes)
    if (l.slot == 0)  // one entry per backend and device, however many workers (--workers) share it
      placed.push_back({{"backend", targets[l.target].backend->name()}, {"device", l.device ? l.device->index : -1}});
  nlohmann::json fields{{"timeout_ms", s.timeout.count()}, {"lanes", placed}};
  if (s.devices) fields["device_mode"] = device_mode_name(s.device_mode);
  return job_record(header, s, fields);
}

// What the earlier sitting of a resumed run measured: its results, and their identities (the
// jobs not to run again).
struct Resumed {
  std::vector<CaseResult> results;
  std::set<std::string> finished;
};

// Spread, a job kept is kept whichever device ran it: its identity names none.
std::optional<Resumed> resumed_results(const JobSitting& sitting, const std::filesystem::path& out_dir, DeviceMode mode) {
  if (!sitting.resumed()) return std::nullopt;
  const auto results_path = out_dir / ResultsJsonl::kFileName;
  std::error_code ec;
  Resumed r;
  if (std::filesystem::exists(results_path, ec)) r.results = read_results_jsonl(results_path);
  for (const CaseResult& c : r.results)
    r.finished.insert(result_identity(c.backend, c.impl_key, c.case_id,
                                      c.device && mode == DeviceMode::kEach ? std::optional<int>(c.device->index) : std::nullopt));
  return r;
}

}  // namespace

int run_conformance(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& s) {
  const auto jobs = plan_checked_jobs(backend_plans(targets), suite, s.filter, s.impl_selection);
  World* world = s.world != nullptr && s.world->size() > 1 ? s.world : nullptr;
  const unsigned cores = std::thread::hardware_concurrency();
  const std::vector<Lane> lanes = world ? plan_lanes(targets, s, world->rank(), world->local_rank(), world->local_size(), cores)
                                        : plan_lanes(targets, s, 0, 0, 1, cores);
  if (world && world->rank() != 0) return run_as_member(*world, targets, jobs, lanes, suite, s);
  const bool spread = s.device_mode == DeviceMode::kSpread;

  RunReport report = run_header("opcert-conformance-report", targets, suite, s);
  const JobSitting sitting = start_sitting(report, conformance_job(report, targets, lanes, s), s.out_dir, s.resume,
                                           {ResultsJsonl::kFileName, "results", "run"});
  const std::optional<Resumed> resumed = resumed_results(sitting, s.out_dir, s.device_mode);
  // Spread, the jobs kept are not run again on any lane; each, a lane skips those of its device.
  const std::set<std::string> kept = resumed ? resumed->finished : std::set<std::string>{};
  const std::set<std::string> kept_spread = spread ? kept : std::set<std::string>{};
  const std::set<std::string> kept_each = spread ? std::set<std::string>{} : kept;

  std::unique_ptr<RankMerger> merger;
  std::vector<int> owners;  // spread across ranks: the rank that runs each job
  ResultStream stream;
  std::size_t expected = results_to_come(lanes, targets, jobs, suite, s, kept_spread);
  const std::size_t already = resumed && !spread ? std::min(resumed->results.size(), expected) : 0;
  {
    std::exception_ptr setup_error;
    try {
      if (world) {
        if (s.resume && !spread)
          throw InputError("--resume across ranks needs --device-mode spread: with each, rerun the job whole");
        merger = std::make_unique<RankMerger>(*world, rank_silence_limit(s));
        expected += merger->gather_hellos(kRankStartupWait, run_setup(suite, s, jobs.size()));
        if (spread) {
          owners = plan_owners(jobs, suite, targets.size(), lanes, *merger, world->size(), kept);
          expected = static_cast<std::size_t>(std::count_if(owners.begin(), owners.end(), [](int o) { return o >= 0; }));
        }
      }
      prepare_out_dir(s.out_dir);
      open_outputs(sitting, s.out_dir, [&] {
        add_conformance_outputs(stream, s.out_dir, s.progress, expected - already, resumed.has_value(), s.profile);
      });
    } catch (const std::exception&) {
      setup_error = std::current_exception();
    }
    if (world) agree_or_end(*world, setup_error);
    else if (setup_error) std::rethrow_exception(setup_error);
  }
  if (world && spread) owners = share_job_owners(*world, owners, jobs.size());
  if (world) {
    report.ranks = world->size();
    report.launcher = world->launcher();
  }
  stream.run_started(report);
  if (resumed) {
    report.results = resumed->results;
    stream.note(fmt::format("opcert: resuming {}: {} result(s) kept, {} job(s) to run", s.out_dir.string(),
                            resumed->results.size(), expected - already));
  }

  std::mutex results_mutex;
  const auto deliver = [&](CaseResult r, bool peer) {
    stream.case_done(r, peer);
    const std::lock_guard lock(results_mutex);
    report.results.push_back(std::move(r));
  };
  const LaneEvents events{[&](const CaseStart& start) { stream.case_started(start); },
                          [&](CaseResult r, bool peer) {
                            if (world) r.rank = 0;
                            deliver(std::move(r), peer);
                          },
                          [&](const std::string& line) { stream.note(line); }};
  if (merger) merger->start(deliver);
  // The receivers call `deliver`, which holds the stream, the report and the mutex above: should
  // anything below throw, they are joined before those are destroyed.
  struct JoinMerger {
    std::unique_ptr<RankMerger>& merger;
    ~JoinMerger() { merger.reset(); }
  } join_merger{merger};

  install_stop_handlers();
  const LaneLogs logs{(s.out_dir / "logs").string(), ""};
  bool interrupted = !run_lanes(lanes, targets, jobs, todo_by_target(jobs, suite, targets.size(), owners, 0, kept_spread),
                                suite, s, logs, events, kept_each);
  std::vector<std::string> lost_ranks;
  if (merger) {
    if (interrupted || stop_requested()) merger->stop_after(RankMerger::kStopGrace);
    lost_ranks = merger->finish(s.out_dir);
    for (const auto& line : lost_ranks) stream.note("opcert: " + line);
  }
  interrupted = interrupted || stop_requested();
  if (interrupted)
    stream.note(fmt::format("opcert: {}: stopped after {} of {} cases; writing what was measured{}", stop_signal_name(),
                            report.results.size(), expected + (spread && resumed ? resumed->results.size() : 0),
                            world && !spread ? "" : fmt::format(" (the same command with --resume {} goes on from here)", s.out_dir.string())));

  order_results(report.results, targets, jobs, suite, s.device_mode);
  rewrite_results_jsonl(s.out_dir, report.results);  // streamed as they came; now in the run's order
  fill_alignment(report.results, s.peer);
  report.complete = !interrupted && lost_ranks.empty();
  finish_sitting(stream, report, s.environment,
                 session_exit_code(report.results, peer_only_backends(targets), interrupted, !lost_ranks.empty()));
  remove_stop_handlers();
  if (world) {
    if (!lost_ranks.empty()) world->abort_job(report.exit_code);  // a lost rank may hang: end the job
    return share_exit_code(*world, report.exit_code);
  }
  return report.exit_code;
}

}  // namespace opcert
