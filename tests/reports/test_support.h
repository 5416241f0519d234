// Shared by the report tests: a scratch directory, file reading, running an external tool.
#pragma once

#include <filesystem>
#include <string>

namespace opcert::test {

/// A fresh directory under the system temp dir, removed with its contents on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& text);

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
/// Runs `command` through /bin/sh.
CommandResult run_command(const std::string& command);

/// Single-quotes `s` for /bin/sh.
std::string shell_quote(const std::string& s);

/// A python3 that can import jsonschema with Draft 2020-12 support, or "" when none is found.
std::string python_with_jsonschema();
/// true when xmllint is on PATH.
bool have_xmllint();

}  // namespace opcert::test
