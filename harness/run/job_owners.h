// --device-mode spread across the ranks of an MPI job (docs/CLI.md, "Devices"): rank 0 plans
// which rank runs each job (session/planning/job_shares.h) from every rank's lanes and sends the
// plan to all; each rank then runs its share on its lanes. Also what a rank runs of one target,
// spread or not.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "run/worker_lanes.h"
#include "session/planning/job_list.h"
#include "session/planning/job_shares.h"

namespace opcert {

/// How many of `lanes` serve each of `targets` targets.
std::vector<int> lanes_per_target(const std::vector<Lane>& lanes, std::size_t targets);

/// Indices of target `target`'s jobs that rank `rank` runs, in job order: those `owners` gives it
/// (every one when `owners` is empty), less those whose device-free result_identity is in
/// `finished` (spread: any device may have run a job kept from an earlier sitting).
std::vector<std::size_t> jobs_to_run(const std::vector<Job>& jobs, const Suite& suite, std::size_t target,
                                     const std::vector<int>& owners, int rank, const std::set<std::string>& finished);

/// jobs_to_run for each of `targets` targets, by target index.
std::vector<std::vector<std::size_t>> todo_by_target(const std::vector<Job>& jobs, const Suite& suite, std::size_t targets,
                                                     const std::vector<int>& owners, int rank,
                                                     const std::set<std::string>& finished);

}  // namespace opcert
