#include "bench/bench_ranks.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>

#include "bench/bench_workers.h"
#include "model/case_result_json.h"
#include "model/exit_codes.h"
#include "ranks/rank_agreement.h"
#include "reports/bench_record_json.h"
#include "reports/file_sinks.h"
#include "reports/number_format.h"
#include "reports/report_writer.h"
#include "reports/results_jsonl.h"
#include "session/job/job_record.h"
#include "session/job/run_paths.h"
#include "session/job/stop_request.h"
#include "session/planning/device_choice.h"
#include "session/planning/job_shares.h"
#include "util/remove_tree.h"

namespace opcert {

std::vector<std::optional<int>> rank_lane_devices(const std::vector<std::optional<int>>& chosen, const World* world) {
  if (world == nullptr || world->size() < 2 || chosen.empty() || !chosen.front()) return chosen;
  std::vector<int> indices;
  for (const auto& d : chosen) indices.push_back(*d);
  const std::vector<int> share = node_share(indices, world->local_rank(), world->local_size());
  return {share.begin(), share.end()};
}

nlohmann::json bench_rank_setup(const Suite& suite, const BenchSettings& s, const std::vector<BenchJob>& jobs) {
  // The benchmarks as one text: a rank that planned others (another memory admission, another
  // query_op answer) would time other units under rank 0's deal.
  std::string names;
  for (const BenchJob& j : jobs) names += j.name + (j.peer ? "/peer\n" : "\n");
  const auto golden = s.environment.libraries.find("golden_set");
  return {{"suite", suite.sha256},
          {"seed", s.seed},
          {"filter", s.filter},
          {"implementations", s.impl_selection},
          {"platform", s.platform},
          {"platform configs", platform_config_digests(s)},
          {"golden set", golden == s.environment.libraries.end() ? "" : golden->get<std::string>().substr(0, 64)},
          {"benchmark flags", s.benchmark_flags},
          {"benchmarks", jobs.size()},
          {"benchmark names", fmt::format("{:016x}", std::hash<std::string>{}(names))},
          {"device mode", device_mode_name(s.device_mode)}};
}

std::chrono::milliseconds bench_rank_silence(const BenchSettings& s) {
  return BenchWorkers::job_limit(s) + std::chrono::seconds(120) + std::chrono::seconds(60);
}

std::vector<int> deal_units(const std::vector<BenchUnit>& units, const std::vector<char>& held,
                            const std::vector<int>& lanes_by_rank) {
  std::vector<bool> pending;
  for (const BenchUnit& u : units)
    pending.push_back(std::any_of(held.begin() + static_cast<std::ptrdiff_t>(u.first),
                                  held.begin() + static_cast<std::ptrdiff_t>(u.end), [](char h) { return h == 0; }));
  std::vector<std::vector<int>> lanes;
  for (const int n : lanes_by_rank) lanes.push_back({n});
  return spread_owners(std::vector<std::size_t>(units.size(), 0), pending, lanes);
}

std::vector<BenchUnit> units_of_rank(const std::vector<BenchUnit>& units, const std::vector<int>& owners, int rank,
                                     std::vector<char>& held) {
  std::vector<BenchUnit> mine;
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (owners.empty() || owners[u] == rank) {
      mine.push_back(units[u]);
      continue;
    }
    for (std::size_t i = units[u].first; i < units[u].end; ++i) held[i] = 1;
  }
  return mine;
}

void tag_rank(BenchJob& job, int rank) {
  job.rank = rank;
  if (job.check) job.check->rank = rank;
}

int bench_as_member(World& world, const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s,
                    const std::vector<Job>& planned, const std::vector<std::optional<int>>& chosen,
                    const std::vector<std::optional<int>>& lanes, const nlohmann::json& gpus, bool& agreed) {
  const int rank = world.rank();
  // The workers' logs go to a private folder: they travel to rank 0 at the end, into logs/rank<r>/.
  BenchSettings mine = s;
  mine.out_dir = make_private_temp_dir(fmt::format("opcert-rank{}-", rank));
  std::filesystem::create_directories(mine.out_dir / "logs");
  std::vector<std::unique_ptr<BenchWorkers>> workers;
  const uint64_t shared_bytes = BenchWorkers::shared_host_bytes(targets, lanes.size(), world.local_size());
  for (const auto& device : lanes) workers.push_back(std::make_unique<BenchWorkers>(suite, mine, device, shared_bytes));
  // A rank beyond its node's devices times nothing, but plans as the others do, on the first.
  std::unique_ptr<BenchWorkers> planner;
  if (workers.empty()) planner = std::make_unique<BenchWorkers>(suite, mine, chosen.front());
  BenchPlan plan = plan_benchmarks(planned, targets, suite, mine, workers.empty() ? *planner : *workers.front(), gpus);
  if (planner) (void)planner->shutdown();

  RankUplink uplink(world, bench_rank_silence(s));
  uplink.hello(0, bench_rank_setup(suite, s, plan.jobs), {static_cast<int>(lanes.size())});
  agreed = true;
  if (!agree_on_setup(world, nullptr)) throw std::runtime_error("the ranks did not all start within 120 s");
  const std::vector<BenchUnit> units = bench_units(plan.jobs);
  std::vector<char> held(plan.jobs.size(), 0);
  const std::vector<BenchUnit> dealt = units_of_rank(units, share_job_owners(world, {}, units.size()), rank, held);

  install_stop_handlers();
  const bool complete = time_units(plan.jobs, dealt, held, lanes, workers, [&](std::size_t i) {
    tag_rank(plan.jobs[i], rank);
    uplink.benchmark(bench_record(plan.jobs[i], plan.jobs), plan.jobs[i].check);
  });
  for (const auto& lane : workers)
    for (const std::string& note : lane->shutdown()) fmt::print(stderr, "opcert: rank {}: {}\n", rank, note);
  uplink.done(complete && !stop_requested(), mine.out_dir / "logs");
  remove_tree(mine.out_dir);
  remove_stop_handlers();
  return share_exit_code(world, kExitOk);
}

void rewrite_in_suite_order(const std::filesystem::path& out_dir, const std::vector<BenchRecord>& records,
                            const std::vector<CaseResult>& results) {
  std::string measurements;
  for (const BenchRecord& r : records) measurements += dump_json(bench_record_json(r)) + "\n";
  write_file_atomically(out_dir / kMeasurementsJsonlFileName, measurements);
  rewrite_results_jsonl(out_dir, results);
}

}  // namespace opcert
