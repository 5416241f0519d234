// Runs the opcert executable as a user would and captures what it said.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace opcert::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

/// Runs `opcert <args>` through the shell with `env` prefixed (e.g. "OPCERT_PLUGIN_PATH=/x").
CommandResult run_opcert(const std::string& args, const std::string& env = "");

/// run_opcert with another opcert executable (e.g. the build without LibTorch).
CommandResult run_opcert_binary(const std::string& binary, const std::string& args, const std::string& env = "");

/// How an opcert stopped by a signal ended (stop_opcert_when).
struct StoppedCommand {
  bool ready = false;       // `ready` said so before the deadline, and the signal was sent
  bool exited = false;      // it exited (it handled the signal), not killed by it
  int exit_code = -1;
  std::chrono::milliseconds after_signal{0};  // from the signal to its end
};

/// Starts `opcert <args>` (OPCERT_BINARY; stdin /dev/null, stdout and stderr into `log`), polls
/// `ready` every 50 ms for at most 60 s, waits 300 ms more (inside what it is doing then), sends it
/// `sig` and waits for it to end.
StoppedCommand stop_opcert_when(const std::vector<std::string>& args, const std::string& log,
                                const std::function<bool()>& ready, int sig);

/// A fresh private directory (mode 0700), removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  /// Writes `text` to path()/name and returns the file's path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

}  // namespace opcert::test
