// Runs the opcert executable as a user would and captures what it said.
#pragma once

#include <string>

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
