// Which rank runs which job when the ranks of an MPI job spread one run's cases (--device-mode
// spread, docs/CLI.md "Devices"). Rank 0 decides once, from every rank's lanes, and broadcasts
// it: a plan fixed before anything runs, the same on every rank, needing no coordinator.
#pragma once

#include <cstddef>
#include <vector>

#include "ranks/world.h"

namespace opcert {

/// The owner rank of each job, -1 for one that is not to run. `job_targets[j]` is job j's target
/// (an index into the run's targets), `pending[j]` whether it still has to run (not kept from an
/// earlier sitting by --resume), `lanes[r][t]` how many lanes rank r runs target t on. A target's
/// pending jobs go round its lanes one at a time (rank 0's first lane, rank 1's first, ..., then
/// the second lanes), so each rank gets a share in proportion to its lanes and both the long and
/// the short cases of a suite ordered by size. A target no rank has a lane for: -1.
std::vector<int> spread_owners(const std::vector<std::size_t>& job_targets, const std::vector<bool>& pending,
                               const std::vector<std::vector<int>>& lanes);

/// Rank 0's `owners` (one per job, `jobs` of them) on every rank: the plan above, or bench's of its
/// units. Throws std::runtime_error when the ranks did not all take part within kRankStartupWait
/// (ranks/rank_agreement.h).
std::vector<int> share_job_owners(World& world, const std::vector<int>& owners, std::size_t jobs);

}  // namespace opcert
