#include "run/collective_runner.h"

#include <algorithm>

#include "run/collective_ledger.h"
#include "session/job/run_header.h"
#include "session/planning/job_list.h"
#include "session/rank_loop/collective_loop.h"

namespace opcert {

int run_collectives(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& settings, World& world) {
  std::vector<Job> jobs = plan_checked_jobs(backend_plans(targets), suite, settings.filter, settings.impl_selection);
  // The peer runs no collectives here (it is the bench's yardstick); keep the selected backends' jobs.
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.peer; }), jobs.end());

  CollectiveLoop loop;
  loop.targets = targets;
  loop.timeout = settings.timeout;
  loop.what = "case";
  for (const Job& j : jobs) {
    const Case& c = suite.cases[j.case_index];
    loop.steps.push_back({j.backend_index, j.impl_key, &c, j.backend + '\n' + j.impl_key + '\n' + c.id});
  }
  loop.make_ledger = [&] {
    RunReport header = run_header("opcert-conformance-report", targets, suite, settings);
    header.peer.clear();  // no peer runs here: nothing is compared
    header.ranks = world.size();
    header.launcher = world.launcher();
    return std::make_unique<CollectiveRunLedger>(std::move(header), settings, loop.steps, loop.targets, world.size());
  };
  loop.body = [](StepRun& run) {
    try {
      run.prepared.run(run.comm.comm);
      run.result = run.prepared.check();
    } catch (const std::exception& e) {
      run.result = run.failure(e);
    }
  };
  return run_collective_loop(loop, world);
}

}  // namespace opcert
