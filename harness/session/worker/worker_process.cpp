#include "session/worker/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace opcert {
namespace {

std::runtime_error system_error(const std::string& what, int error) {
  return std::runtime_error(what + ": " + std::strerror(error));
}

// Moves `fd` above the standard descriptors (close-on-exec), so the dup2 onto 0, 1 or 2 in the
// child never degenerates into a no-op that would leave close-on-exec set.
int above_stdio(int fd) {
  if (fd > 2) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int error = errno;
  close(fd);
  if (moved < 0) throw system_error("cannot duplicate a pipe descriptor", error);
  return moved;
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Owns a posix_spawn attribute set and file actions for the duration of one spawn.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

// The child's environment: ours, with `overrides` ("NAME=value") replacing variables of their
// names. Built as a list rather than with setenv, which is not safe while other threads run.
std::vector<std::string> child_environment(const std::vector<std::string>& overrides) {
  const auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const bool replaced = std::any_of(overrides.begin(), overrides.end(),
                                      [&](const std::string& o) { return name_of(o) == name_of(entry); });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

}  // namespace

WorkerProcess::WorkerProcess(const std::string& executable, const std::vector<std::string>& args,
                             const std::string& log_path, const std::vector<std::string>& environment) {
  int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) throw system_error("cannot open worker log " + log_path, errno);
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) {
    const int error = errno;
    close(log);
    throw system_error("cannot create a pipe", error);
  }
  if (pipe2(out, O_CLOEXEC) != 0) {
    const int error = errno;
    close(log);
    close(in[0]);
    close(in[1]);
    throw system_error("cannot create a pipe", error);
  }
  int child_in = -1, child_out = -1;
  try {
    log = above_stdio(log);
    child_in = above_stdio(in[0]);
    child_out = above_stdio(out[1]);
  } catch (...) {
    for (int fd : {log, in[0], in[1], out[0], out[1]})
      if (fd >= 0) close(fd);
    throw;
  }
  to_worker_ = in[1];
  from_worker_ = out[0];

  SpawnSetup setup;
  posix_spawn_file_actions_adddup2(&setup.actions, child_in, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, child_out, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, log, STDERR_FILENO);
  // The runner ignores SIGPIPE and catches SIGINT/SIGTERM; the worker starts with the defaults.
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, s);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&setup.attr, &defaults);
  posix_spawnattr_setsigmask(&setup.attr, &empty);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);

  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(executable.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::vector<std::string> env_entries = child_environment(environment);
  std::vector<char*> envp;
  for (const auto& e : env_entries) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const int rc = posix_spawn(&pid_, executable.c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
  close(child_in);
  close(child_out);
  close(log);
  if (rc != 0) {
    pid_ = -1;
    close_pipes();
    throw system_error("cannot start " + executable, rc);
  }
  fcntl(from_worker_, F_SETFL, fcntl(from_worker_, F_GETFL) | O_NONBLOCK);
}

WorkerProcess::~WorkerProcess() { kill(); }

void WorkerProcess::close_pipes() {
  close_fd(to_worker_);
  close_fd(from_worker_);
}

bool WorkerProcess::send(const std::string& line) {
  std::size_t sent = 0;
  while (sent < line.size()) {
    if (to_worker_ < 0) return false;
    const ssize_t n = write(to_worker_, line.data() + sent, line.size() - sent);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;  // EPIPE: the worker is gone (SIGPIPE is ignored by the runner)
    }
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

WorkerProcess::Read WorkerProcess::read_line(std::string& line, Clock::time_point deadline,
                                             const std::function<bool()>& stop) {
  for (;;) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return Read::kLine;
    }
    if (from_worker_ < 0) return Read::kClosed;
    if (stop && stop()) return Read::kStopped;
    const auto now = Clock::now();
    if (now >= deadline) return Read::kTimeout;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd pfd{from_worker_, POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(std::clamp<long long>(left, 1, 100)));
    if (ready < 0 && errno != EINTR) return Read::kClosed;
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(from_worker_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      buffer_.clear();  // a partial last line from a dying worker is no message
      close_fd(from_worker_);
      return Read::kClosed;
    }
  }
}

void WorkerProcess::kill() {
  close_pipes();
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

std::string WorkerProcess::reap(std::chrono::milliseconds grace) {
  close_pipes();
  if (pid_ <= 0) return "had already ended";
  int status = 0;
  const auto until = Clock::now() + grace;
  for (;;) {
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno != EINTR) {
      pid_ = -1;
      return "ended (its status could not be read)";
    }
    if (Clock::now() >= until) {
      ::kill(pid_, SIGKILL);
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      pid_ = -1;
      return "closed its output but did not exit; killed";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  pid_ = -1;
  return describe_exit(status);
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGALRM: return "SIGALRM";
    default: return "signal " + std::to_string(signal);
  }
}

std::string describe_exit(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int s = WTERMSIG(wait_status);
    return s == SIGKILL ? "was killed (SIGKILL, e.g. out of memory)" : "died with " + signal_name(s);
  }
  if (WIFEXITED(wait_status)) {
    const int code = WEXITSTATUS(wait_status);
    return code == 0 ? "exited normally" : "exited with code " + std::to_string(code);
  }
  return "ended with wait status " + std::to_string(wait_status);
}

}  // namespace opcert
