// write_file_atomically (declared in report_writer.h): a reader sees the old file or the whole new
// one, never a prefix, even when the run is killed while writing.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "reports/report_writer.h"

namespace opcert {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int err) {
  throw std::runtime_error("cannot write " + path.string() + ": " + what + ": " + std::strerror(err));
}

// A name no other writer in this or another process picks: pid plus a per-process counter.
std::filesystem::path temporary_name(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  auto name = path;
  name += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  return name;
}

void write_all(int fd, const std::string& text, const std::filesystem::path& path) {
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "write", errno);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// Makes the rename itself durable; best effort, since some file systems refuse fsync on a directory.
void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const auto temp = temporary_name(path);
  // 0666 less the umask: the permissions a plain create would give.
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail(path, "create " + temp.filename().string(), errno);
  try {
    write_all(fd, text, path);
    if (::fsync(fd) != 0) fail(path, "fsync", errno);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  // close reports the deferred write errors of some file systems (NFS), so it is checked too.
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail(path, "close", err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail(path, "rename", err);
  }
  sync_directory(path.parent_path());
}

}  // namespace opcert
