#include "session/job/run_paths.h"

#include <stdlib.h>  // mkdtemp
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/input_error.h"
#include "session/job/repro.h"

namespace opcert {

std::filesystem::path chosen_out_dir(const std::string& out, const std::string& resume,
                                     std::chrono::system_clock::time_point started, const std::string& what) {
  namespace fs = std::filesystem;
  if (!resume.empty() && !out.empty() && fs::absolute(out).lexically_normal() != fs::absolute(resume).lexically_normal())
    throw InputError("--resume '" + resume + "' writes into the " + what + " it resumes; drop --out '" + out + "'");
  return !resume.empty() ? fs::path(resume) : out.empty() ? default_out_dir(started) : fs::path(out);
}

std::filesystem::path default_out_dir(std::chrono::system_clock::time_point t) {
  return std::filesystem::path("out") / format_utc(t, "%Y%m%dT%H%M%SZ");
}

void prepare_out_dir(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw InputError("--out '" + dir.string() + "' exists and is not a directory; name a directory");
  fs::create_directories(dir / "logs", ec);
  if (ec) throw InputError("--out '" + dir.string() + "': cannot create it: " + ec.message());
  if (access(dir.c_str(), W_OK) != 0)
    throw InputError("--out '" + dir.string() + "' is not writable; name a directory you can write to");
}

std::string current_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string line;
  std::size_t start = 0;
  while (start < raw.size()) {
    const std::size_t end = raw.find('\0', start);
    const std::string arg = raw.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty()) line += ' ';
    line += shell_quote(arg);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return line;
}

std::string current_executable() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : path.string();
}

std::filesystem::path make_private_temp_dir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create " + pattern + ": " + std::strerror(errno));
  return pattern;
}

std::string file_safe(const std::string& name) {
  std::string safe;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    safe += ok ? c : '_';
  }
  if (safe.empty() || safe[0] == '.') safe = "_" + safe;
  return safe;
}

}  // namespace opcert
