#include "run/conformance_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <map>

#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/alignment.h"
#include "reports/output_sets.h"
#include "session/job_list.h"
#include "session/repro.h"
#include "session/run_header.h"
#include "session/run_paths.h"
#include "session/stop_request.h"
#include "session/worker_session.h"

namespace opcert {
namespace {

WorkerLaunch launch_for(const RunTarget& t, const Suite& suite, const RunSettings& s) {
  WorkerLaunch launch;
  launch.executable = s.executable;
  launch.backend = t.backend->name();
  launch.args = {"worker", "--backend", launch.backend};
  launch.args.insert(launch.args.end(), s.worker_options.begin(), s.worker_options.end());
  launch.args.insert(launch.args.end(), {"--suite", suite.name, "--seed", std::to_string(s.seed)});
  launch.log_name = "logs/" + file_safe(launch.backend) + ".worker.log";
  launch.log_path = (s.out_dir / launch.log_name).string();
  launch.expected_cases = suite.cases.size();
  launch.startup_timeout = std::max<std::chrono::milliseconds>(std::chrono::seconds(120), s.timeout);
  return launch;
}

std::string stopped_by() {
  const int sig = stop_signal();
  return sig == 0 ? "interrupted" : (sig == SIGTERM ? "SIGTERM" : "SIGINT");
}

}  // namespace

int run_conformance(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& s) {
  const auto jobs = plan_checked_jobs(backend_plans(targets), suite, s.filter, s.impl_selection);
  prepare_out_dir(s.out_dir);
  ResultStream stream;
  try {
    add_conformance_outputs(stream, s.out_dir, s.progress, jobs.size());
  } catch (const std::exception& e) {
    throw InputError(fmt::format("--out '{}': {}", s.out_dir.string(), e.what()));
  }
  RunReport report = run_header("opcert-conformance-report", targets, suite, s);
  stream.run_started(report);

  const ReproContext repro{s.repro_suite, s.seed, s.repro_options};
  install_stop_handlers();
  const std::function<bool()> stop = [] { return stop_requested(); };
  bool interrupted = false;
  for (std::size_t b = 0; b < targets.size() && !interrupted; ++b) {
    const RunTarget& target = targets[b];
    WorkerSession session(launch_for(target, suite, s));
    for (const Job& job : jobs) {
      if (job.backend_index != b) continue;
      if (stop_requested()) {
        interrupted = true;
        break;
      }
      const Case& c = suite.cases[job.case_index];
      stream.case_started({job.backend, job.impl_key, c.id});
      auto result = session.run({c.id, job.impl_key}, c, s.timeout, stop);
      if (!result) {
        interrupted = true;
        break;
      }
      if (result->repro.empty())
        result->repro = repro_line(target.backend->name(), target.backend->source(), job.impl_key, c.id, repro);
      stream.case_done(*result, job.peer);
      report.results.push_back(std::move(*result));
    }
    session.shutdown();
    if (session.starts() > 1)
      stream.note(fmt::format("{}: the worker was started {} times (crashes and timeouts restart it); its stderr is in {}",
                              target.backend->name(), session.starts(),
                              (s.out_dir / "logs" / (file_safe(target.backend->name()) + ".worker.log")).string()));
  }
  interrupted = interrupted || stop_requested();
  if (interrupted)
    stream.note(fmt::format("opcert: {}: stopped after {} of {} cases; writing what was measured", stopped_by(),
                            report.results.size(), jobs.size()));

  fill_alignment(report.results, s.peer);
  std::map<std::string, bool> peer_only;
  for (const auto& t : targets) peer_only[t.backend->name()] = t.peer;
  const bool any_failed = std::any_of(report.results.begin(), report.results.end(), [&](const CaseResult& r) {
    return !peer_only[r.backend] && status_fails_run(r.status);
  });
  report.complete = !interrupted;
  report.exit_code = interrupted ? kExitInterrupted : (any_failed ? kExitCheckFailed : kExitOk);
  report.finished_at = now_utc();
  report.environment = capture_environment(s.environment);
  stream.run_finished(report);
  remove_stop_handlers();
  if (stream.failed()) fmt::print(stderr, "opcert: error: some outputs could not be written (see above)\n");
  return report.exit_code;
}

}  // namespace opcert
