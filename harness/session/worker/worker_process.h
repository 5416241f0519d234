// One worker process, started by exec'ing a binary with posix_spawn (never a bare fork: a runner
// that has initialised OpenMP, CUDA or LibTorch is not safe to fork). Its stdin and stdout are
// pipes owned by this object; its stderr appends to a log file. It runs in its own process group,
// so a Ctrl-C at the terminal reaches only the runner, which then ends its workers itself.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace opcert {

class WorkerProcess {
 public:
  using Clock = std::chrono::steady_clock;

  /// Starts `executable` with `args` (argv[1...]; argv[0] is the executable) in this process's
  /// environment, with each "NAME=value" of `environment` set (replacing a variable of that name).
  /// Throws std::runtime_error naming what failed (log file, pipes, posix_spawn's error).
  WorkerProcess(const std::string& executable, const std::vector<std::string>& args, const std::string& log_path,
                const std::vector<std::string>& environment = {});
  ~WorkerProcess();  // kills and reaps a worker still running
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }

  /// Writes all of `line`; false when the worker can no longer read (it has gone).
  bool send(const std::string& line);

  enum class Read {
    kLine,     // `line` holds the next complete line, without its '\n'
    kTimeout,  // the deadline passed first
    kClosed,   // the worker closed its stdout: it exited or died
    kStopped,  // `stop()` said to stop waiting
  };
  /// Waits for the next complete line until `deadline`, asking `stop` at least every 100 ms.
  Read read_line(std::string& line, Clock::time_point deadline, const std::function<bool()>& stop);

  /// SIGKILL and reap; a no-op once reaped.
  void kill();

  /// Reaps the worker, giving it `grace` to exit before it is killed, and says how it ended:
  /// "died with SIGSEGV", "exited with code 3", "exited normally", "was killed (SIGKILL)".
  std::string reap(std::chrono::milliseconds grace);

 private:
  void close_pipes();

  pid_t pid_ = -1;
  int to_worker_ = -1;    // the worker's stdin
  int from_worker_ = -1;  // the worker's stdout, non-blocking
  std::string buffer_;    // bytes read past the last complete line
};

/// "SIGSEGV", "SIGKILL", ... or "signal 42".
std::string signal_name(int signal);

/// How a waitpid() status ended the process: "died with SIGSEGV", "exited with code 3", ...
std::string describe_exit(int wait_status);

}  // namespace opcert
