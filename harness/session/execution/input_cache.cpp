#include "session/execution/input_cache.h"

#include "session/execution/memory_admission.h"
#include "util/remove_tree.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace opcert {
namespace {

// The case's input bytes, with checked arithmetic (a case that reaches a worker was admitted).
uint64_t input_bytes(const Case& c) { return case_footprint(c).operands; }

std::filesystem::path case_file(const std::filesystem::path& dir, const std::string& case_id, const char* kind) {
  std::string name;
  for (const char ch : case_id) name += std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' ? ch : '_';
  // The hash tells apart two ids that the character replacement made equal.
  return dir / fmt::format("{}.{:016x}.{}", name.substr(0, 160), std::hash<std::string>{}(case_id), kind);
}

// A worker's claim on making one file: a lock file made with O_EXCL, holding its pid.
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
  /// so is one that named no process for `patience` looks (its maker died as it made it).
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

// How one kind of file is read, sized and written.
template <class T>
struct FileKind {
  std::function<std::optional<T>(std::istream&)> read;  // nullopt when it is not whole for the case
  std::function<uint64_t(const T&)> bytes;
  std::function<void(std::ostream&, const T&)> write;
};

template <class T>
std::optional<T> read_file(const std::filesystem::path& file, const FileKind<T>& kind) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::optional<T> value = kind.read(in);
  if (!value || in.peek() != std::char_traits<char>::eof()) return std::nullopt;  // more than the case's
  return value;
}

template <class T>
bool write_file(const InputCache& cache, const std::filesystem::path& file, const FileKind<T>& kind, const T& value) {
  uint64_t held = kind.bytes(value);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cache.dir, ec))
    if (entry.is_regular_file(ec)) held += entry.file_size(ec);
  if (ec || held > cache.max_bytes) return false;
  std::filesystem::path partial = file;
  partial += fmt::format(".{}.partial", ::getpid());
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    kind.write(out, value);
    out.flush();
    if (!out) {
      std::filesystem::remove(partial, ec);
      return false;
    }
  }
  std::filesystem::rename(partial, file, ec);  // whole or not at all
  if (ec) std::filesystem::remove(partial, ec);
  return !ec;
}

// The worker's log says which cases it shared and which it read.
void say(const Case& c, const char* what, const char* how) {
  fmt::print(stderr, "opcert worker: case '{}': {} {} the run's cache\n", c.id, what, how);
}

template <class T>
T shared(const InputCache& cache, const Case& c, const char* what, const std::filesystem::path& file,
         const FileKind<T>& kind, const std::function<T()>& make) {
  if (cache.dir.empty() || !worth_caching(c)) return make();
  for (;;) {
    if (auto cached = read_file(file, kind)) {
      say(c, what, "read from");
      return std::move(*cached);
    }
    const Claim claim(file);
    if (claim.held()) {
      if (auto cached = read_file(file, kind)) {  // written between the look and the claim
        say(c, what, "read from");
        return std::move(*cached);
      }
      T value = make();
      if (write_file(cache, file, kind, value)) say(c, what, "shared in");
      return value;
    }
    // Another worker is making it: wait for its file while it lives.
    int nameless = 0;
    constexpr int kPatience = 250;  // looks 20 ms apart: 5 s
    while (claim.held_by_another(nameless, kPatience) && !std::filesystem::exists(file))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!std::filesystem::exists(file)) return make();  // its maker kept it (no room) or died
  }
}

template <class V>
void write_vector(std::ostream& out, const std::vector<V>& v) {
  const uint64_t n = v.size();
  out.write(reinterpret_cast<const char*>(&n), sizeof n);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(n * sizeof(V)));
}

template <class V>
bool read_vector(std::istream& in, std::vector<V>& v) {
  uint64_t n = 0;
  if (!in.read(reinterpret_cast<char*>(&n), sizeof n) || n > (uint64_t{1} << 40) / sizeof(V)) return false;
  v.resize(n);
  return static_cast<bool>(in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(V))));
}

FileKind<std::vector<HostTensor>> inputs_kind(const Case& c) {
  return {[&c](std::istream& in) -> std::optional<std::vector<HostTensor>> {
            std::vector<HostTensor> inputs;
            for (const TensorSpec& spec : c.inputs) {
              HostTensor t(spec);
              if (!in.read(reinterpret_cast<char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size())))
                return std::nullopt;
              inputs.push_back(std::move(t));
            }
            return inputs;
          },
          [&c](const std::vector<HostTensor>&) { return input_bytes(c); },
          [](std::ostream& out, const std::vector<HostTensor>& inputs) {
            for (const HostTensor& t : inputs)
              out.write(reinterpret_cast<const char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
          }};
}

FileKind<std::vector<ReferenceOutput>> reference_kind() {
  return {[](std::istream& in) -> std::optional<std::vector<ReferenceOutput>> {
            std::vector<uint64_t> count;
            if (!read_vector(in, count) || count.size() != 1 || count[0] > 64) return std::nullopt;
            std::vector<ReferenceOutput> outputs(count[0]);
            for (ReferenceOutput& o : outputs) {
              std::vector<char> name;
              if (!read_vector(in, name) || !read_vector(in, o.indices) || !read_vector(in, o.values) ||
                  !read_vector(in, o.magnitude) || !read_vector(in, o.condition))
                return std::nullopt;
              o.name.assign(name.begin(), name.end());
            }
            return outputs;
          },
          [](const std::vector<ReferenceOutput>& outputs) {
            uint64_t total = 8;
            for (const ReferenceOutput& o : outputs)
              total += 40 + o.name.size() + 8 * (o.indices.size() + o.values.size() + o.magnitude.size() + o.condition.size());
            return total;
          },
          [](std::ostream& out, const std::vector<ReferenceOutput>& outputs) {
            write_vector(out, std::vector<uint64_t>{outputs.size()});
            for (const ReferenceOutput& o : outputs) {
              write_vector(out, std::vector<char>(o.name.begin(), o.name.end()));
              write_vector(out, o.indices);
              write_vector(out, o.values);
              write_vector(out, o.magnitude);
              write_vector(out, o.condition);
            }
          }};
}

}  // namespace

InputCache input_cache_from_environment() {
  InputCache cache;
  const char* dir = std::getenv(kInputCacheEnvironmentVariable);
  const char* bytes = std::getenv(kInputCacheBytesEnvironmentVariable);
  if (dir == nullptr || *dir == '\0' || bytes == nullptr) return cache;
  cache.dir = dir;
  cache.max_bytes = std::strtoull(bytes, nullptr, 10);
  return cache;
}

bool worth_caching(const Case& c) { return input_bytes(c) >= kInputCacheMinBytes; }

std::filesystem::path input_cache_file(const std::filesystem::path& dir, const std::string& case_id) {
  return case_file(dir, case_id, "inputs");
}

std::filesystem::path reference_cache_file(const std::filesystem::path& dir, const std::string& case_id) {
  return case_file(dir, case_id, "reference");
}

std::vector<HostTensor> shared_inputs(const InputCache& cache, const Case& c,
                                      const std::function<std::vector<HostTensor>()>& generate) {
  return shared<std::vector<HostTensor>>(cache, c, "inputs", input_cache_file(cache.dir, c.id), inputs_kind(c), generate);
}

std::vector<ReferenceOutput> shared_reference(const InputCache& cache, const Case& c,
                                              const std::function<std::vector<ReferenceOutput>()>& compute) {
  return shared<std::vector<ReferenceOutput>>(cache, c, "reference", reference_cache_file(cache.dir, c.id),
                                              reference_kind(), compute);
}

void clear_input_cache(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) std::filesystem::remove(entry.path(), ec);
}

std::optional<std::filesystem::path> make_input_cache_dir(const std::filesystem::path& parent) {
  std::error_code ec;
  if (!std::filesystem::is_directory(parent, ec) || ::access(parent.c_str(), W_OK) != 0) return std::nullopt;
  // A runner killed outright (SIGKILL, a lost node) could not remove its folder: the folders of
  // runners that are gone are removed first, with whatever they hold.
  constexpr std::string_view kPrefix = "opcert-inputs-";
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::string_view rest = std::string_view(name).substr(kPrefix.size());
    const std::size_t dash = rest.find('-');
    long pid = 0;
    if (dash == std::string_view::npos ||
        std::from_chars(rest.data(), rest.data() + dash, pid).ptr != rest.data() + dash || pid <= 0)
      continue;  // not named by a runner's pid
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) remove_tree(entry.path());
  }
  std::string pattern = (parent / fmt::format("{}{}-XXXXXX", kPrefix, ::getpid())).string();
  if (::mkdtemp(pattern.data()) == nullptr) return std::nullopt;
  return std::filesystem::path(pattern);
}

}  // namespace opcert
