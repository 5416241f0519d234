#include "cli/run_opcert.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "bench/report_files.h"

extern char** environ;

namespace opcert::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "opcert-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& text) const {
  const std::string file = path_ + "/" + name;
  std::ofstream(file) << text;
  return file;
}

CommandResult run_opcert(const std::string& args, const std::string& env) { return run_opcert_binary(OPCERT_BINARY, args, env); }

CommandResult run_opcert_binary(const std::string& binary, const std::string& args, const std::string& env) {
  TempDir capture;
  const std::string out = capture.path() + "/out", err = capture.path() + "/err";
  // env -u keeps the developer's own settings from leaking into the test.
  const std::string command = "env -u OPCERT_PLUGIN_PATH -u OPCERT_PLATFORM_JSON -u OPCERT_BACKENDS -u OPCERT_PLATFORM " +
                              env + " " + binary + " " + args + " >" + out + " 2>" + err + " </dev/null";
  const int status = std::system(command.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

StoppedCommand stop_opcert_when(const std::vector<std::string>& args, const std::string& log,
                                const std::function<bool()>& ready, int sig) {
  std::vector<std::string> all{OPCERT_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, OPCERT_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + std::string(OPCERT_BINARY));

  StoppedCommand r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && !(r.ready = ready()))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (r.ready) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto t0 = std::chrono::steady_clock::now();
  kill(pid, r.ready ? sig : SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  r.after_signal = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  r.exited = WIFEXITED(status);
  r.exit_code = r.exited ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace opcert::test
