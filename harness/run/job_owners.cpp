#include "run/job_owners.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "ranks/rank_agreement.h"
#include "session/job/job_record.h"

namespace opcert {

std::vector<int> lanes_per_target(const std::vector<Lane>& lanes, std::size_t targets) {
  std::vector<int> counts(targets, 0);
  for (const Lane& l : lanes)
    if (l.target < targets) ++counts[l.target];
  return counts;
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

std::vector<std::size_t> jobs_to_run(const std::vector<Job>& jobs, const Suite& suite, std::size_t target,
                                     const std::vector<int>& owners, int rank, const std::set<std::string>& finished) {
  std::vector<std::size_t> todo;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Job& job = jobs[j];
    if (job.backend_index != target) continue;
    if (!owners.empty() && owners[j] != rank) continue;
    if (!finished.empty() && finished.contains(result_identity(job.backend, job.impl_key, suite.cases[job.case_index].id, std::nullopt))) continue;
    todo.push_back(j);
  }
  return todo;
}

std::vector<std::vector<std::size_t>> todo_by_target(const std::vector<Job>& jobs, const Suite& suite, std::size_t targets,
                                                     const std::vector<int>& owners, int rank,
                                                     const std::set<std::string>& finished) {
  std::vector<std::vector<std::size_t>> todo;
  for (std::size_t t = 0; t < targets; ++t) todo.push_back(jobs_to_run(jobs, suite, t, owners, rank, finished));
  return todo;
}

}  // namespace opcert
