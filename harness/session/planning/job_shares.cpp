#include "session/planning/job_shares.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "ranks/rank_agreement.h"

namespace opcert {
namespace {

// Target t's lanes as the ranks owning them, interleaved: each rank's first lane, then the seconds.
std::vector<int> lane_round(const std::vector<std::vector<int>>& lanes, std::size_t t) {
  std::vector<int> round;
  for (int depth = 0;; ++depth) {
    bool any = false;
    for (std::size_t r = 0; r < lanes.size(); ++r)
      if (t < lanes[r].size() && lanes[r][t] > depth) {
        round.push_back(static_cast<int>(r));
        any = true;
      }
    if (!any) return round;
  }
}

}  // namespace

std::vector<int> spread_owners(const std::vector<std::size_t>& job_targets, const std::vector<bool>& pending,
                               const std::vector<std::vector<int>>& lanes) {
  std::vector<int> owners(job_targets.size(), -1);
  const std::size_t targets = job_targets.empty() ? 0 : *std::max_element(job_targets.begin(), job_targets.end()) + 1;
  for (std::size_t t = 0; t < targets; ++t) {
    const std::vector<int> round = lane_round(lanes, t);
    if (round.empty()) continue;
    std::size_t next = 0;
    for (std::size_t j = 0; j < job_targets.size(); ++j)
      if (job_targets[j] == t && pending[j]) owners[j] = round[next++ % round.size()];
  }
  return owners;
}

std::vector<int> share_job_owners(World& world, const std::vector<int>& owners, std::size_t jobs) {
  std::vector<int32_t> wire(jobs, -1);
  if (world.rank() == 0)
    for (std::size_t j = 0; j < jobs && j < owners.size(); ++j) wire[j] = owners[j];
  std::vector<uint8_t> bytes(jobs * sizeof(int32_t));
  if (!bytes.empty()) std::memcpy(bytes.data(), wire.data(), bytes.size());
  if (!world.broadcast(bytes, 0, std::chrono::steady_clock::now() + kRankStartupWait))
    throw std::runtime_error("the ranks did not all receive the plan of who runs which case within 120 s");
  if (!bytes.empty()) std::memcpy(wire.data(), bytes.data(), bytes.size());
  return {wire.begin(), wire.end()};
}

}  // namespace opcert
