// The folder a verb's workers share big inputs through (session/worker/input_cache_folder.h,
// session/execution/input_cache.h): named for its runner, sized to the host, told to the workers,
// emptied case by case, removed with its runner; and the folder of a runner that died without
// removing its own (SIGKILL) removed by the next runner to make one.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "session/worker/input_cache_folder.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;

// A pid that no process has any more: a child's, once reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

void touch(const fs::path& file) { std::ofstream(file) << "x"; }

class TempParent {
 public:
  TempParent() {
    std::string pattern = (fs::temp_directory_path() / "opcert-shm-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempParent() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(InputCacheFolder, ARunnersFolderIsNamedForItAndTheFoldersOfDeadRunnersGoFirst) {
  TempParent parent;
  ASSERT_FALSE(parent.path().empty());
  const fs::path dead = parent.path() / ("opcert-inputs-" + std::to_string(dead_pid()) + "-abc123");
  const fs::path alive = parent.path() / ("opcert-inputs-" + std::to_string(::getppid()) + "-def456");
  const fs::path unnamed = parent.path() / "opcert-inputs-XyZ123";  // not a runner's pid: not ours to judge
  for (const fs::path& dir : {dead, alive, unnamed}) {
    fs::create_directory(dir);
    touch(dir / "case.inputs");
  }
  const auto made = make_input_cache_dir(parent.path());
  ASSERT_TRUE(made.has_value());
  EXPECT_EQ(made->filename().string().rfind("opcert-inputs-" + std::to_string(::getpid()) + "-", 0), 0u) << *made;
  EXPECT_FALSE(fs::exists(dead)) << "a dead runner's folder and its files are removed";
  EXPECT_TRUE(fs::exists(alive / "case.inputs")) << "a live runner's folder stays";
  EXPECT_TRUE(fs::exists(unnamed / "case.inputs"));
  EXPECT_FALSE(make_input_cache_dir(parent.path() / "missing").has_value());
}

TEST(InputCacheFolder, ItIsSizedToTheHostToldToWorkersEmptiedCaseByCaseAndRemovedWithItsRunner) {
  if (!fs::is_directory("/dev/shm") || ::access("/dev/shm", W_OK) != 0) GTEST_SKIP() << "no writable /dev/shm here";
  fs::path dir;
  {
    const InputCacheFolder folder(uint64_t{8} << 30);
    dir = folder.cache().dir;
    ASSERT_FALSE(dir.empty());
    EXPECT_LE(folder.cache().max_bytes, uint64_t{1} << 30) << "an eighth of the host's bytes at most";
    EXPECT_EQ(folder.set_aside(), folder.cache().max_bytes);
    const auto env = folder.environment();
    ASSERT_EQ(env.size(), 2u);
    EXPECT_EQ(env[0], std::string(kInputCacheEnvironmentVariable) + "=" + dir.string());
    EXPECT_EQ(env[1], std::string(kInputCacheBytesEnvironmentVariable) + "=" + std::to_string(folder.cache().max_bytes));

    touch(input_cache_file(dir, "a"));
    touch(reference_cache_file(dir, "a"));
    touch(input_cache_file(dir, "b"));
    folder.forget("a");
    EXPECT_FALSE(fs::exists(input_cache_file(dir, "a")));
    EXPECT_FALSE(fs::exists(reference_cache_file(dir, "a")));
    EXPECT_TRUE(fs::exists(input_cache_file(dir, "b"))) << "another case's files stay";
    folder.clear();
    EXPECT_TRUE(fs::is_empty(dir));
    touch(input_cache_file(dir, "c"));
  }
  EXPECT_FALSE(fs::exists(dir)) << "the folder goes with its runner, files and all";

  const InputCacheFolder none(0);
  EXPECT_TRUE(none.cache().dir.empty()) << "no host bytes to share: no folder";
  EXPECT_TRUE(none.environment().empty());
  EXPECT_EQ(none.set_aside(), 0u);
}

}  // namespace
}  // namespace opcert
