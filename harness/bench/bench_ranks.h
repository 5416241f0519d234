// `opcert bench` of compute ops across the ranks of an MPI job (`--devices` under mpirun or srun,
// --device-mode spread; docs/CLI.md "Devices"). Every rank plans the same benchmarks (the same
// suite, selection and settings: rank 0 refuses a rank whose plan differs) and takes its node's
// share of the devices by local rank; rank 0 deals the units (a case with its peer and copy
// baseline, bench/bench_lanes.h) over every rank's lanes (session/planning/job_shares.h) and
// broadcasts the deal; each rank times its units on its lanes, and the other ranks send each
// benchmark to rank 0 as it is timed (session/rank_loop/rank_merge.h), where it is written with
// rank 0's own into one set of outputs, in the suite's order. --device-mode each is refused across
// ranks (the CLI says so): run one bench per node for every device's figures of every case.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "bench/bench_job.h"
#include "bench/bench_lanes.h"
#include "bench/bench_plan.h"
#include "bench/bench_settings.h"
#include "check/suite.h"
#include "ranks/world.h"
#include "session/rank_loop/rank_merge.h"
#include "session/planning/targets.h"

namespace opcert {

/// This rank's lanes of `chosen` (bench_lane_devices'): its node's share by local rank. Without
/// --devices, or without ranks, `chosen` itself.
std::vector<std::optional<int>> rank_lane_devices(const std::vector<std::optional<int>>& chosen, const World* world);

/// What every rank must share for rank 0's outputs to speak for its figures: the suite, the seed,
/// the selection, the platform and its configs, the bench settings, and the benchmarks planned.
nlohmann::json bench_rank_setup(const Suite& suite, const BenchSettings& s, const std::vector<BenchJob>& jobs);

/// How long a rank may be silent: one benchmark's limit, plus a worker's start, plus a margin.
std::chrono::milliseconds bench_rank_silence(const BenchSettings& s);

/// Rank 0: the owner rank of each of `units`, -1 for one already held (kept by --resume), dealt
/// round every rank's lanes (`lanes_by_rank[r]`: rank r's lane count).
std::vector<int> deal_units(const std::vector<BenchUnit>& units, const std::vector<char>& held,
                            const std::vector<int>& lanes_by_rank);

/// The units `owners` gives `rank` (every one when `owners` is empty); marks every job of the
/// others held, so that no lane of this rank takes it.
std::vector<BenchUnit> units_of_rank(const std::vector<BenchUnit>& units, const std::vector<int>& owners, int rank,
                                     std::vector<char>& held);

/// Sets jobs[i]'s rank, and its check's, once timed on a rank of an MPI job.
void tag_rank(BenchJob& job, int rank);

/// A rank other than 0: plans as rank 0 does, says hello, times the units dealt to it on `lanes`
/// and sends each benchmark to rank 0; returns rank 0's exit code. Sets `agreed` as it joins the
/// ranks' agreement on the setup (whether it was made or not, it is not to be joined again).
int bench_as_member(World& world, const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s,
                    const std::vector<Job>& planned, const std::vector<std::optional<int>>& chosen,
                    const std::vector<std::optional<int>>& lanes, const nlohmann::json& gpus, bool& agreed);

/// Rewrites measurements.jsonl and results.jsonl of `out_dir` to hold `records` and `results`, each
/// in the order given (the suite's; the verdicts, then the checks, as one process writes them): the
/// ranks' lines came as they were timed.
void rewrite_in_suite_order(const std::filesystem::path& out_dir, const std::vector<BenchRecord>& records,
                            const std::vector<CaseResult>& results);

}  // namespace opcert
