#include "session/worker/worker_loop.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <unordered_map>

#include "model/dtype.h"
#include "session/worker/worker_protocol.h"

namespace opcert {
namespace {

// Blocking line reader on a file descriptor.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  bool next(std::string& line) {
    for (;;) {
      if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
        line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return true;
      }
      char chunk[4096];
      const ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

// A job the worker cannot run: the case is unknown here (no op, no dtype) or the line was garbled.
CaseResult error_result(const BackendHandle& backend, const JobRequest& job, const std::string& suite,
                        const std::string& message) {
  Case unknown;
  unknown.suite = suite;
  unknown.id = job.case_id;
  CaseResult r = blank_result(backend.name(), job.impl_key, unknown);
  r.status = Status::kError;
  r.message = message;
  return r;
}

}  // namespace

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool serve_jobs(BackendHandle& backend, const Suite& suite, int in_fd, int out_fd, const JobRunner& run_job) {
  std::unordered_map<std::string, const Case*> by_id;
  for (const Case& c : suite.cases) by_id.emplace(c.id, &c);
  LineReader reader(in_fd);
  std::string line;
  while (reader.next(line)) {
    if (line.empty()) continue;
    const auto received = std::chrono::steady_clock::now();
    WorkerAnswer answer;
    JobRequest job;
    try {
      job = decode_job(line);
      const auto it = by_id.find(job.case_id);
      if (it == by_id.end()) {
        answer.result = error_result(backend, job, suite.name,
                                     "the worker's suite '" + suite.name + "' has no case '" + job.case_id + "'");
      } else {
        answer = run_job(job, *it->second);
      }
    } catch (const std::exception& e) {
      answer = {error_result(backend, job, suite.name, std::string("the worker could not run the job: ") + e.what()),
                nullptr};
    }
    // The worker's whole time on the job, for the runner to tell its own overhead from it.
    PhaseTimes& phases = answer.result.phases ? *answer.result.phases : answer.result.phases.emplace();
    phases.worker = std::chrono::duration<double>(std::chrono::steady_clock::now() - received).count();
    if (!write_all(out_fd, encode_answer(answer))) return false;
  }
  return true;
}

}  // namespace opcert
