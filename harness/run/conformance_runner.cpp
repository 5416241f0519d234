#include "run/conformance_runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <memory>

#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/alignment.h"
#include "reports/report_writer.h"
#include "reports/results_stream.h"
#include "reports/summary_table.h"
#include "run/job_list.h"
#include "run/repro.h"
#include "run/run_paths.h"
#include "run/stop_request.h"
#include "run/worker_session.h"

namespace opcert {

std::vector<BackendPlan> backend_plans(const std::vector<RunTarget>& targets) {
  std::vector<BackendPlan> plans;
  for (const auto& t : targets) plans.push_back({t.backend->name(), t.backend->implementations(), t.peer});
  return plans;
}

namespace {

// Checks the selections before anything starts; returns the jobs to run.
std::vector<Job> plan_jobs(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& s) {
  return plan_checked_jobs(backend_plans(targets), suite, s.filter, s.impl_selection);
}


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

}  // namespace

BackendRecord backend_record(const RunTarget& t) {
  const BackendSource& src = t.backend->source();
  BackendRecord r;
  r.name = t.backend->name();
  r.version = t.backend->version();
  r.source = src.kind == BackendSource::Kind::kPlugin ? "plugin" : "built-in";
  r.library_path = src.library_path;
  r.sha256 = src.sha256;
  r.peer = t.peer;
  return r;
}

RunReport report_header(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& s) {
  RunReport report;
  report.opcert_version = s.environment.opcert_version;
  report.command_line = s.command_line;
  report.suite = suite.name;
  report.suite_path = suite.path;
  report.suite_sha256 = suite.sha256;
  report.seed = s.seed;
  report.platform = s.platform;
  report.started_at = iso_utc(std::chrono::system_clock::now());
  for (const auto& t : targets) report.backends.push_back(backend_record(t));
  return report;
}

bool write_reports(const RunReport& report, const std::filesystem::path& out_dir) {
  bool written = true;
  for (const auto& writer : all_report_writers()) {
    try {
      writer->write(report, out_dir);
    } catch (const std::exception& e) {
      written = false;
      fmt::print(stderr, "opcert: error: {}\n", e.what());
    }
  }
  return written;
}

int run_conformance(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& s) {
  const auto jobs = plan_jobs(targets, suite, s);
  prepare_out_dir(s.out_dir);

  RunReport report = report_header(targets, suite, s);

  ReproContext repro{s.repro_suite, s.seed, s.repro_options};
  std::unique_ptr<ResultsStream> opened;
  try {
    opened = std::make_unique<ResultsStream>(s.out_dir, ResultsStream::Mode::kTruncate);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("--out '{}': {}", s.out_dir.string(), e.what()));
  }
  ResultsStream& stream = *opened;
  Progress progress(s.progress, stderr, jobs.size());
  install_stop_handlers();
  const std::function<bool()> stop = [] { return stop_requested(); };

  bool interrupted = false;
  bool stream_failed = false;
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
      progress.starting(job.backend, job.impl_key, c.id);
      auto result = session.run({c.id, job.impl_key}, c, s.timeout, stop);
      if (!result) {
        interrupted = true;
        break;
      }
      if (result->repro.empty())
        result->repro = repro_line(target.backend->name(), target.backend->source(), job.impl_key, c.id, repro);
      try {
        stream.append(*result);
      } catch (const std::exception& e) {
        if (!stream_failed) progress.note(fmt::format("opcert: error: {}", e.what()));
        stream_failed = true;
      }
      progress.finished(*result, job.peer);
      report.results.push_back(std::move(*result));
    }
    session.shutdown();
    if (session.starts() > 1)
      progress.note(fmt::format("{}: the worker was started {} times (crashes and timeouts restart it); its "
                                "stderr is in {}",
                                target.backend->name(), session.starts(),
                                (s.out_dir / "logs" / (file_safe(target.backend->name()) + ".worker.log")).string()));
  }
  progress.done();
  if (interrupted || stop_requested()) {
    interrupted = true;
    const int sig = stop_signal();
    fmt::print(stderr, "opcert: {}: stopped after {} of {} cases; writing what was measured\n",
               sig == 0 ? "interrupted" : (sig == SIGTERM ? "SIGTERM" : "SIGINT"), report.results.size(),
               jobs.size());
  }

  fill_alignment(report.results, "torch");
  std::map<std::string, bool> peer_by_backend;
  for (const auto& t : targets) peer_by_backend[t.backend->name()] = t.peer;
  const bool any_failed = std::any_of(report.results.begin(), report.results.end(), [&](const CaseResult& r) {
    return !peer_by_backend[r.backend] && status_fails_run(r.status);
  });
  report.complete = !interrupted;
  report.exit_code = interrupted ? kExitInterrupted : (any_failed ? kExitCheckFailed : kExitOk);
  report.finished_at = iso_utc(std::chrono::system_clock::now());
  report.environment = capture_environment(s.environment);

  const bool written = write_reports(report, s.out_dir);
  remove_stop_handlers();

  fmt::print("{}", console_summary_table(report, isatty(STDOUT_FILENO) == 1));
  fmt::print("{} result(s) in {}{}\n", report.results.size(), s.out_dir.string(),
             report.complete ? "" : " (incomplete: the run was interrupted)");
  if (!written) fmt::print(stderr, "opcert: error: some reports could not be written; results.jsonl has every result\n");
  return report.exit_code;
}

}  // namespace opcert
