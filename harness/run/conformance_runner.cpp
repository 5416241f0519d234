#include "run/conformance_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "model/exit_codes.h"
#include "model/input_error.h"
#include "ranks/rank_agreement.h"
#include "reports/alignment.h"
#include "reports/output_sets.h"
#include "reports/results_jsonl.h"
#include "run/rank_merge.h"
#include "run/worker_lanes.h"
#include "session/job/exit_rule.h"
#include "session/job/job_record.h"
#include "session/job/job_sitting.h"
#include "session/job/run_header.h"
#include "session/job/run_paths.h"
#include "session/job/stop_request.h"
#include "session/planning/job_list.h"

namespace opcert {
namespace {

using Clock = std::chrono::steady_clock;

// How long a rank may be silent: a case ends within its timeout, a worker starts within its own.
std::chrono::milliseconds rank_silence_limit(const RunSettings& s) {
  return s.timeout + std::max<std::chrono::milliseconds>(std::chrono::seconds(120), s.timeout) + std::chrono::seconds(60);
}

// The lanes of one target, in lane order.
std::vector<Lane> lanes_of(const std::vector<Lane>& lanes, std::size_t target) {
  std::vector<Lane> of;
  for (const Lane& l : lanes)
    if (l.target == target) of.push_back(l);
  return of;
}

// Results in a stable order whatever order they finished in: target by target, then by rank and
// device, each lane's results in job order.
void order_results(std::vector<CaseResult>& results, const std::vector<RunTarget>& targets) {
  std::map<std::string, std::size_t> target_of;
  for (std::size_t t = 0; t < targets.size(); ++t) target_of[targets[t].backend->name()] = t;
  const auto key = [&](const CaseResult& r) {
    const auto it = target_of.find(r.backend);
    return std::make_tuple(it == target_of.end() ? targets.size() : it->second, r.rank.value_or(0),
                           r.device ? r.device->index : -1);
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
nlohmann::json run_setup(const Suite& suite, const RunSettings& s) {
  const auto golden = s.environment.libraries.find("golden_set");
  return {{"suite", suite.sha256},  {"seed", s.seed}, {"filter", s.filter}, {"implementations", s.impl_selection},
          {"platform", s.platform}, {"platform configs", platform_config_digests(s)},
          {"golden set", golden == s.environment.libraries.end() ? "" : golden->get<std::string>().substr(0, 64)}};
}

// A rank other than 0: runs its lanes, sends every result to rank 0, and takes rank 0's exit code.
int run_as_member(World& world, const std::vector<RunTarget>& targets, const std::vector<Job>& jobs,
                  const std::vector<Lane>& lanes, const Suite& suite, const RunSettings& s) {
  RankUplink uplink(world, rank_silence_limit(s));
  uplink.hello(lane_result_count(lanes, jobs), run_setup(suite, s));
  agree_or_end(world, nullptr);
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
  bool complete = true;
  for (std::size_t t = 0; t < targets.size() && complete; ++t) {
    const auto mine = lanes_of(lanes, t);
    if (!mine.empty()) complete = run_lanes(mine, targets, jobs, suite, s, logs, events);
  }
  uplink.done(complete, log_dir);
  std::error_code ec;
  std::filesystem::remove_all(log_dir, ec);
  remove_stop_handlers();
  return share_exit_code(world, kExitOk);
}

// The job as job.json records it: what run_setup holds, the backends, and where each lane runs.
JobRecord conformance_job(const RunReport& header, const std::vector<RunTarget>& targets, const std::vector<Lane>& lanes,
                          const RunSettings& s) {
  nlohmann::json placed = nlohmann::json::array();
  for (const Lane& l : lanes)
    placed.push_back({{"backend", targets[l.target].backend->name()}, {"device", l.device ? l.device->index : -1}});
  return job_record(header, s, {{"timeout_ms", s.timeout.count()}, {"lanes", placed}});
}

// What the earlier sitting of a resumed run measured: its results, and their identities (the
// jobs not to run again).
struct Resumed {
  std::vector<CaseResult> results;
  std::set<std::string> finished;
};

std::optional<Resumed> resumed_results(const JobSitting& sitting, const std::filesystem::path& out_dir) {
  if (!sitting.resumed()) return std::nullopt;
  const auto results_path = out_dir / ResultsJsonl::kFileName;
  std::error_code ec;
  Resumed r;
  if (std::filesystem::exists(results_path, ec)) r.results = read_results_jsonl(results_path);
  for (const CaseResult& c : r.results)
    r.finished.insert(result_identity(c.backend, c.impl_key, c.case_id, c.device ? std::optional<int>(c.device->index) : std::nullopt));
  return r;
}

}  // namespace

int run_conformance(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& s) {
  const auto jobs = plan_checked_jobs(backend_plans(targets), suite, s.filter, s.impl_selection);
  World* world = s.world != nullptr && s.world->size() > 1 ? s.world : nullptr;
  const std::vector<Lane> lanes = world ? plan_lanes(targets, s, world->rank(), world->local_rank(), world->local_size())
                                        : plan_lanes(targets, s, 0, 0, 1);
  if (world && world->rank() != 0) return run_as_member(*world, targets, jobs, lanes, suite, s);
  if (world && s.resume) throw InputError("--resume runs in one process: resume a run across ranks by rerunning it");

  RunReport report = run_header("opcert-conformance-report", targets, suite, s);
  const JobSitting sitting = start_sitting(report, conformance_job(report, targets, lanes, s), s.out_dir, s.resume,
                                           {ResultsJsonl::kFileName, "results", "run"});
  const std::optional<Resumed> resumed = resumed_results(sitting, s.out_dir);

  std::unique_ptr<RankMerger> merger;
  ResultStream stream;
  std::size_t expected = lane_result_count(lanes, jobs);
  const std::size_t already = resumed ? std::min(resumed->results.size(), expected) : 0;
  {
    std::exception_ptr setup_error;
    try {
      if (world) {
        merger = std::make_unique<RankMerger>(*world, rank_silence_limit(s));
        expected += merger->gather_hellos(kRankStartupWait, run_setup(suite, s));
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
  bool interrupted = false;
  const LaneLogs logs{(s.out_dir / "logs").string(), ""};
  for (std::size_t t = 0; t < targets.size() && !interrupted; ++t) {
    const auto mine = lanes_of(lanes, t);
    if (!mine.empty()) interrupted = !run_lanes(mine, targets, jobs, suite, s, logs, events, resumed ? resumed->finished : std::set<std::string>{});
  }
  std::vector<std::string> lost_ranks;
  if (merger) {
    if (interrupted || stop_requested()) merger->stop_after(std::chrono::seconds(5));
    lost_ranks = merger->finish(s.out_dir);
    for (const auto& line : lost_ranks) stream.note("opcert: " + line);
  }
  interrupted = interrupted || stop_requested();
  if (interrupted)
    stream.note(fmt::format("opcert: {}: stopped after {} of {} cases; writing what was measured{}", stop_signal_name(),
                            report.results.size(), expected,
                            world ? "" : fmt::format(" (the same command with --resume {} goes on from here)", s.out_dir.string())));

  order_results(report.results, targets);
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
