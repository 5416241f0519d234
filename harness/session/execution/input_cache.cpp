#include "session/execution/input_cache.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>

namespace opcert {
namespace {

uint64_t input_bytes(const Case& c) {
  uint64_t total = 0;
  for (const TensorSpec& t : c.inputs) total += t.bytes();
  return total;
}

}  // namespace

std::filesystem::path input_cache_file(const std::filesystem::path& dir, const std::string& case_id) {
  std::string name;
  for (const char ch : case_id) name += std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' ? ch : '_';
  // The hash tells apart two ids that the character replacement made equal.
  return dir / fmt::format("{}.{:016x}.inputs", name.substr(0, 160), std::hash<std::string>{}(case_id));
}

std::optional<std::vector<HostTensor>> read_cached_inputs(const std::filesystem::path& dir, const Case& c) {
  const std::filesystem::path file = input_cache_file(dir, c.id);
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec || size != input_bytes(c)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;  // removed since: generate
  std::vector<HostTensor> inputs;
  for (const TensorSpec& spec : c.inputs) {
    HostTensor t(spec);
    if (!in.read(reinterpret_cast<char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()))) return std::nullopt;
    inputs.push_back(std::move(t));
  }
  return inputs;
}

namespace {

// A worker's claim on generating a case's inputs: a lock file made with O_EXCL, holding its pid.
class Claim {
 public:
  explicit Claim(const std::filesystem::path& file) : path_(file.string() + ".lock") {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return;
    const std::string pid = std::to_string(::getpid());
    held_ = ::write(fd, pid.data(), pid.size()) == static_cast<ssize_t>(pid.size());
    ::close(fd);
    if (!held_) ::unlink(path_.c_str());
  }
  ~Claim() {
    if (held_) ::unlink(path_.c_str());
  }
  Claim(const Claim&) = delete;
  Claim& operator=(const Claim&) = delete;
  bool held() const { return held_; }
  /// Whether another live process holds the claim. A claim whose process died is taken away, and
  /// so is one that named no process for `patience` looks (its writer died as it made it).
  bool held_by_another(int& nameless, int patience) const {
    std::ifstream in(path_);
    long pid = 0;
    if (!(in >> pid) || pid <= 0) {
      if (!std::filesystem::exists(path_)) return false;
      if (++nameless < patience) return true;
    } else if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) {
      return true;
    }
    ::unlink(path_.c_str());
    return false;
  }

 private:
  std::string path_;
  bool held_ = false;
};

}  // namespace

std::vector<HostTensor> shared_inputs(const InputCache& cache, const Case& c,
                                      const std::function<std::vector<HostTensor>()>& generate, std::string& shared) {
  shared.clear();
  if (cache.dir.empty() || !worth_caching(c)) return generate();
  const std::filesystem::path file = input_cache_file(cache.dir, c.id);
  for (;;) {
    if (auto cached = read_cached_inputs(cache.dir, c)) {
      shared = "read";
      return std::move(*cached);
    }
    const Claim claim(file);
    if (claim.held()) {
      if (auto cached = read_cached_inputs(cache.dir, c)) {  // written between the look and the claim
        shared = "read";
        return std::move(*cached);
      }
      std::vector<HostTensor> inputs = generate();
      if (write_cached_inputs(cache, c, inputs)) shared = "written";
      return inputs;
    }
    // Another worker is generating them: wait for its file while it lives.
    int nameless = 0;
    constexpr int kPatience = 250;  // looks 20 ms apart: 5 s
    while (claim.held_by_another(nameless, kPatience) && !std::filesystem::exists(file))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!std::filesystem::exists(file)) return generate();  // its writer gave up (no room) or died
  }
}

InputCache input_cache_from_environment() {
  InputCache cache;
  const char* dir = std::getenv(kInputCacheEnvironmentVariable);
  const char* bytes = std::getenv(kInputCacheBytesEnvironmentVariable);
  if (dir == nullptr || *dir == '\0' || bytes == nullptr) return cache;
  cache.dir = dir;
  cache.max_bytes = std::strtoull(bytes, nullptr, 10);
  return cache;
}

bool write_cached_inputs(const InputCache& cache, const Case& c, const std::vector<HostTensor>& inputs) {
  if (cache.dir.empty()) return false;
  uint64_t held = input_bytes(c);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cache.dir, ec))
    if (entry.is_regular_file(ec)) held += entry.file_size(ec);
  if (ec || held > cache.max_bytes) return false;
  const std::filesystem::path file = input_cache_file(cache.dir, c.id);
  std::filesystem::path partial = file;
  partial += fmt::format(".{}.partial", ::getpid());
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    for (const HostTensor& t : inputs)
      if (out) out.write(reinterpret_cast<const char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
    out.flush();
    if (!out) {
      std::filesystem::remove(partial, ec);
      return false;
    }
  }
  std::filesystem::rename(partial, file, ec);  // whole or not at all; a second writer's copy is the same bytes
  if (ec) std::filesystem::remove(partial, ec);
  return !ec;
}

void clear_input_cache(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) std::filesystem::remove(entry.path(), ec);
}

std::optional<std::filesystem::path> make_input_cache_dir() {
  const std::filesystem::path shm = "/dev/shm";
  std::error_code ec;
  if (!std::filesystem::is_directory(shm, ec) || ::access(shm.c_str(), W_OK) != 0) return std::nullopt;
  std::string pattern = (shm / "opcert-inputs-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return std::nullopt;
  return std::filesystem::path(pattern);
}

bool worth_caching(const Case& c) { return input_bytes(c) >= kInputCacheMinBytes; }

}  // namespace opcert
