#include "run/job_owners.h"

#include "session/job/job_record.h"

namespace opcert {

std::vector<int> lanes_per_target(const std::vector<Lane>& lanes, std::size_t targets) {
  std::vector<int> counts(targets, 0);
  for (const Lane& l : lanes)
    if (l.target < targets) ++counts[l.target];
  return counts;
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
