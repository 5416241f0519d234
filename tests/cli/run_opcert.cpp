#include "cli/run_opcert.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "bench/report_files.h"

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

}  // namespace opcert::test
