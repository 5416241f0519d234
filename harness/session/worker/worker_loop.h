// The worker's side of the protocol (session/worker/worker_protocol.h): read a job, run the case, answer
// with its result, until the runner closes the pipe. One backend, one suite, per worker.
#pragma once

#include <functional>
#include <string>

#include "check/suite.h"
#include "loader/backend_handle.h"
#include "session/worker/worker_protocol.h"

namespace opcert {

/// Writes all of `text` to `fd`; false when the reader has gone.
bool write_all(int fd, const std::string& text);

/// What the worker does with one job of a case of its suite: run and check it (`opcert run`,
/// execute_case), or check and time it (`opcert bench`, bench/bench_worker.h).
using JobRunner = std::function<WorkerAnswer(const JobRequest&, const Case&)>;

/// Serves jobs from `in_fd` until it reaches end of file, answering each on `out_fd` with what
/// `run_job` gives. A job for a case the suite does not have, or that `run_job` throws on, is
/// answered with an ERROR result. Returns false when the runner stopped reading answers.
bool serve_jobs(BackendHandle& backend, const Suite& suite, int in_fd, int out_fd, const JobRunner& run_job);

}  // namespace opcert
