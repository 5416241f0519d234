// The worker's side of the protocol (run/worker_protocol.h): read a job, run the case, answer
// with its result, until the runner closes the pipe. One backend, one suite, per worker.
#pragma once

#include <functional>
#include <string>

#include "session/execution.h"
#include "check/suite.h"
#include "loader/backend_handle.h"

namespace opcert {

/// Writes all of `text` to `fd`; false when the reader has gone.
bool write_all(int fd, const std::string& text);

/// Serves jobs from `in_fd` until it reaches end of file, answering each on `out_fd`. A job for a
/// case the suite does not have, or that execute_case throws on, is answered with an ERROR
/// result. Returns false when the runner stopped reading answers.
bool serve_jobs(BackendHandle& backend, const Suite& suite, int in_fd, int out_fd,
                const std::function<ExecutionOptions(const Case&)>& options_for);

}  // namespace opcert
