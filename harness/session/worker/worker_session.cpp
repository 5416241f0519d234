#include "session/worker/worker_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "model/dtype.h"
#include "session/worker/worker_memory_limit.h"

namespace opcert {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string seconds_text(std::chrono::milliseconds d) {
  return fmt::format("{:g} s", static_cast<double>(d.count()) / 1000.0);
}

}  // namespace

std::chrono::milliseconds harness_phase_limit(std::chrono::milliseconds timeout) {
  return std::max<std::chrono::milliseconds>(10 * timeout, std::chrono::minutes(10));
}

WorkerAnswer WorkerSession::synthesized(const JobRequest& job, const Case& c, Status status, const std::string& message,
                                        double duration_ms) const {
  CaseResult r = blank_result(launch_.backend, job.impl_key, c);
  r.status = status;
  r.message = message;
  r.duration_ms = duration_ms;
  return {std::move(r), nullptr};
}

uint64_t WorkerSession::log_size() const {
  std::error_code ec;
  const auto size = std::filesystem::file_size(launch_.log_path, ec);
  return ec ? 0 : size;
}

std::string WorkerSession::log_since(uint64_t offset) const {
  constexpr uint64_t kTail = 64 * 1024;  // last words are at the end, however much came before
  std::ifstream in(launch_.log_path, std::ios::binary);
  const uint64_t size = log_size();
  in.seekg(static_cast<std::streamoff>(std::max(offset, size > kTail ? size - kTail : 0)));
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WorkerSession::log(const std::string& line) const {
  std::ofstream(launch_.log_path, std::ios::app) << "opcert: " << line << "\n";
}

WorkerSession::Start WorkerSession::start(const std::function<bool()>& stop) {
  ++starts_;
  log("starting worker #" + std::to_string(starts_) + " for backend '" + launch_.backend + "'");
  try {
    process_ = std::make_unique<WorkerProcess>(launch_.executable, launch_.args, launch_.log_path, launch_.environment);
  } catch (const std::exception& e) {
    broken_ = e.what();
    return Start::kFailed;
  }
  std::string line;
  const auto outcome = process_->read_line(line, Clock::now() + launch_.startup_timeout, stop);
  switch (outcome) {
    case WorkerProcess::Read::kStopped:
      process_.reset();
      return Start::kStopped;
    case WorkerProcess::Read::kTimeout:
      process_.reset();
      broken_ = "it was not ready within " + seconds_text(launch_.startup_timeout) + "; see " + launch_.log_name;
      return Start::kFailed;
    case WorkerProcess::Read::kClosed:
      broken_ = "it " + process_->reap(std::chrono::seconds(2)) + " before it was ready; see " + launch_.log_name;
      process_.reset();
      return Start::kFailed;
    case WorkerProcess::Read::kLine:
      break;
  }
  try {
    const WorkerHello hello = decode_hello(line);
    if (!hello.fatal.empty())
      broken_ = hello.fatal;
    else if (hello.backend != launch_.backend)
      broken_ = "it loaded backend '" + hello.backend + "' instead";
    else if (hello.cases != static_cast<int64_t>(launch_.expected_cases))
      broken_ = fmt::format("it loaded {} cases where the runner has {} (did the suite change on disk?)",
                            hello.cases, launch_.expected_cases);
  } catch (const std::exception& e) {
    broken_ = e.what();
  }
  if (!broken_.empty()) {
    process_.reset();
    return Start::kFailed;
  }
  return Start::kReady;
}

std::optional<CaseResult> WorkerSession::run(const JobRequest& job, const Case& c, std::chrono::milliseconds timeout,
                                             const std::function<bool()>& stop) {
  auto answer = exchange(job, c, timeout, stop);
  if (!answer) return std::nullopt;
  return std::move(answer->result);
}

std::optional<WorkerAnswer> WorkerSession::exchange(const JobRequest& job, const Case& c,
                                                    std::chrono::milliseconds timeout,
                                                    const std::function<bool()>& stop) {
  auto answer = run_untagged(job, c, timeout, stop);
  if (answer && launch_.device) answer->result.device = launch_.device;  // crashes and timeouts too
  return answer;
}

std::optional<WorkerAnswer> WorkerSession::run_untagged(const JobRequest& job, const Case& c,
                                                        std::chrono::milliseconds timeout,
                                                        const std::function<bool()>& stop) {
  // A worker that died between two jobs (after answering) gets one fresh start for this job.
  uint64_t log_offset = 0;
  double startup_seconds = 0.0;  // this job's share of starting workers (phases.startup)
  Clock::time_point sent;
  for (int attempt = 0;; ++attempt) {
    if (!broken_.empty())
      return synthesized(job, c, Status::kError, "the worker for backend '" + launch_.backend +
                                                     "' could not be started: " + broken_, 0.0);
    if (!process_) {
      const Start s = [&] {
        const PhaseTimer timer(startup_seconds);
        return start(stop);
      }();
      if (s == Start::kStopped) return std::nullopt;
      if (s == Start::kFailed) continue;
    }
    log_offset = log_size();  // before the job is sent: a worker may die at once
    sent = Clock::now();
    if (process_->send(encode_job(job))) break;
    process_->kill();
    process_.reset();
    if (attempt > 0) {
      broken_ = "it stopped reading jobs as soon as it started; see " + launch_.log_name;
    }
  }

  const auto t0 = Clock::now();
  std::string line;
  // The backend's part of the job (its query, copies and call) has --timeout; the harness's own
  // (inputs, reference, check), told by the worker's phase marks, has harness_phase_limit.
  bool backend_part = true;
  Clock::time_point deadline = t0 + timeout;
  WorkerProcess::Read read;
  for (;;) {
    read = process_->read_line(line, deadline, stop);
    if (read != WorkerProcess::Read::kLine) break;
    const std::optional<bool> mark = decode_phase_mark(line);
    if (!mark) break;
    backend_part = *mark;
    deadline = Clock::now() + (backend_part ? timeout : harness_phase_limit(timeout));
  }
  switch (read) {
    case WorkerProcess::Read::kStopped:
      process_.reset();
      return std::nullopt;
    case WorkerProcess::Read::kTimeout:
      process_.reset();  // kills it
      if (!backend_part) {
        const std::string limit = seconds_text(harness_phase_limit(timeout));
        log("killed the worker: the harness's own work on case '" + c.id + "' (inputs, reference, check) took over " +
            limit);
        return synthesized(job, c, Status::kError,
                           "the harness's own work on the case (its inputs, reference or check) did not end within " +
                               limit + "; the worker was killed and restarted",
                           ms_since(t0));
      }
      log("killed the worker: no result for case '" + c.id + "' on '" + job.impl_key + "' within " +
          seconds_text(timeout));
      return synthesized(job, c, Status::kTimeout,
                         "no result within the " + seconds_text(timeout) +
                             " timeout; the worker was killed and restarted (--timeout sets the limit)",
                         ms_since(t0));
    case WorkerProcess::Read::kClosed: {
      const std::string how = process_->reap(std::chrono::seconds(2));
      process_.reset();
      const std::string note = memory_limit_note(log_since(log_offset));
      const std::string near_limit = note.empty() ? "" : ", near its memory limit: " + note;
      log("the worker " + how + " during case '" + c.id + "' on '" + job.impl_key + "'" + near_limit);
      return synthesized(job, c, Status::kCrashed, "worker " + how + " during the case" + near_limit + "; see " + launch_.log_name,
                         ms_since(t0));
    }
    case WorkerProcess::Read::kLine:
      break;
  }
  try {
    WorkerAnswer answer = decode_answer(line);
    const CaseResult& r = answer.result;
    if (r.case_id != job.case_id || r.impl_key != job.impl_key)
      throw std::runtime_error("it answered for case '" + r.case_id + "' on '" + r.impl_key + "'");
    if (answer.result.phases) {  // what the worker did not account for is the runner's
      answer.result.phases->startup = startup_seconds;
      answer.result.phases->ipc =
          std::max(0.0, std::chrono::duration<double>(Clock::now() - sent).count() - answer.result.phases->worker);
    }
    return answer;
  } catch (const std::exception& e) {
    process_.reset();  // out of step with the protocol: start afresh
    return synthesized(job, c, Status::kError, std::string("the worker's answer could not be read: ") + e.what(),
                       ms_since(t0));
  }
}

void WorkerSession::shutdown() {
  if (!process_) return;
  process_->reap(std::chrono::seconds(5));  // closing its input ends its loop
  process_.reset();
}

}  // namespace opcert
