// The worker's own memory limit (session/worker/worker_memory_limit.h), in a child process each (death
// tests): an allocation past the budget is refused, a death at the limit leaves its note on stderr,
// and one far from it leaves none. The runner's side is RunEndToEnd.ARunawayPluginIsCrashedAtTheWorkersMemoryLimit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "session/worker/worker_memory_limit.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OPCERT_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define OPCERT_UNDER_ASAN 1
#endif

namespace opcert {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// ASan's allocator maps its heap its own way and aborts where malloc would return null.
#ifdef OPCERT_UNDER_ASAN
#define SKIP_UNDER_ASAN() GTEST_SKIP() << "ASan's allocator does not return null at RLIMIT_DATA"
#else
#define SKIP_UNDER_ASAN() (void)0
#endif

// In a death test's child: the limit a worker sets itself, and its note on dying; exit 3 if unset.
void limit_as_a_worker_does(uint64_t budget) {
  const uint64_t limit = limit_process_data(budget);
  if (limit == 0) std::_Exit(3);
  note_deaths_at_memory_limit(limit, budget);
}

// In a child: the limit set is what the process maps plus the budget, and it is in force.
bool limit_is_held_plus_budget() {
  const uint64_t before = process_data_bytes();
  const uint64_t limit = limit_process_data(100 * kMiB);
  rlimit set{};
  getrlimit(RLIMIT_DATA, &set);
  return limit >= before + 100 * kMiB && limit <= before + 116 * kMiB && set.rlim_cur == limit;
}

// In a child: a soft limit already set below what the budget asks is kept.
bool a_tighter_limit_stands() {
  const uint64_t tight = process_data_bytes() + 32 * kMiB;
  rlimit current{};
  getrlimit(RLIMIT_DATA, &current);
  const rlimit wanted{static_cast<rlim_t>(tight), current.rlim_max};
  if (setrlimit(RLIMIT_DATA, &wanted) != 0) return false;
  return limit_process_data(1024 * kMiB) == tight;
}

TEST(WorkerMemoryLimit, TheProcessDataIsReadAndTheLimitIsWhatItHoldsPlusTheBudget) {
  const uint64_t held = process_data_bytes();
  EXPECT_GT(held, 0u);
  EXPECT_EQ(limit_process_data(0), 0u) << "no budget, no limit";
  EXPECT_GE(thread_stack_headroom(), 5 * kMiB) << "a stack at least for each hardware thread and a few more";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(limit_is_held_plus_budget() ? 0 : 1), testing::ExitedWithCode(0), "");
}

TEST(WorkerMemoryLimit, ATighterLimitAlreadySetStands) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(a_tighter_limit_stands() ? 0 : 1), testing::ExitedWithCode(0), "");
}

TEST(WorkerMemoryLimit, AnAllocationPastTheBudgetIsRefusedAndTheDeathThereIsNoted) {
  SKIP_UNDER_ASAN();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        limit_as_a_worker_does(64 * kMiB);
        int blocks = 0;
        for (; blocks < 64; ++blocks) {  // 512 MiB at most: far past the budget
          void* p = std::malloc(8 * kMiB);
          if (p == nullptr) break;
          std::memset(p, 1, 8 * kMiB);
        }
        if (blocks == 64) std::_Exit(4);  // never refused: no limit
        std::raise(SIGSEGV);              // what a library that does not check malloc comes to
      },
      testing::KilledBySignal(SIGSEGV),
      testing::HasSubstr("opcert worker: died near its memory limit: "));
}

TEST(WorkerMemoryLimit, ADeathFarFromTheLimitLeavesNoNote) {
  SKIP_UNDER_ASAN();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        limit_as_a_worker_does(1024 * kMiB);
        std::abort();
      },
      testing::KilledBySignal(SIGABRT), testing::Not(testing::HasSubstr("memory limit")));
}

TEST(WorkerMemoryLimit, TheNoteIsFoundInWhatTheWorkerWroteSinceTheCaseBegan) {
  const std::string log = "loading backend\n" + std::string(kMemoryLimitMarker) +
                          "250M mapped since its backend started, of the 256M it may map (...)\nmore\n";
  EXPECT_EQ(memory_limit_note(log), "250M mapped since its backend started, of the 256M it may map (...)");
  EXPECT_EQ(memory_limit_note("worker died\n"), "");
}

}  // namespace
}  // namespace opcert
