// The pieces that let a run's workers go side by side (run/worker_lanes.h): the queue that hands
// out a case at a time, the memory gate that keeps the cases running at once within memory, the
// auto worker count and the workers' log names.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "run/case_queue.h"
#include "run/memory_gate.h"
#include "run/worker_lanes.h"
#include "session/worker/worker_launch.h"

namespace opcert {
namespace {

Case sized_case(std::string id, int64_t elements) {
  Case c;
  c.id = std::move(id);
  c.op = "toy";
  c.inputs.push_back({"a", OPCERT_DTYPE_F32, {elements}, {}});
  c.outputs.push_back({"out", OPCERT_DTYPE_F32, {elements}, {}});
  return c;
}

Job job(std::size_t case_index, std::string impl) { return {0, "cpu", std::move(impl), case_index, false}; }

std::vector<std::vector<std::size_t>> drain(CaseQueue& q) {
  std::vector<std::vector<std::size_t>> groups;
  while (const CaseGroup* g = q.next()) groups.push_back(g->jobs);
  return groups;
}

class CaseQueueTest : public ::testing::Test {
 protected:
  Suite suite;
  std::vector<Job> jobs{job(0, "a"), job(0, "b"), job(1, "a"), job(2, "a"), job(2, "b"), job(2, "c")};
  void SetUp() override {
    suite.cases = {sized_case("small", 10), sized_case("big", 100000), sized_case("middle", 1000)};
  }
};

TEST_F(CaseQueueTest, AllOfACasesImplementationsGoTogetherInTodoOrder) {
  CaseQueue q(jobs, {0, 1, 2, 3, 4, 5}, suite, true, false);
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(drain(q), (std::vector<std::vector<std::size_t>>{{0, 1}, {2}, {3, 4, 5}}));
  EXPECT_EQ(q.next(), nullptr) << "an empty queue stays empty";
}

TEST_F(CaseQueueTest, CostliestFirstPutsTheBiggestCaseAtTheHead) {
  CaseQueue q(jobs, {0, 1, 2, 3, 4, 5}, suite, true, true);
  EXPECT_EQ(drain(q), (std::vector<std::vector<std::size_t>>{{2}, {3, 4, 5}, {0, 1}}));
}

TEST_F(CaseQueueTest, ACaseCostsItsFootprintAndOnTheDeviceOnlyOffTheHost) {
  const CaseGroup on_host = case_group(suite.cases[1], 1, true);
  const CaseGroup on_device = case_group(suite.cases[1], 1, false);
  EXPECT_EQ(on_host.device_bytes, 0u);
  EXPECT_GT(on_device.device_bytes, 2 * 100000 * sizeof(float) - 1) << "the operand and the output";
  EXPECT_GT(on_host.host_bytes, on_device.host_bytes) << "where the device is host memory, the host holds its share too";
}

TEST_F(CaseQueueTest, EveryGroupIsTakenOnceByManyThreads) {
  std::vector<Job> many;
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < 3000; ++i) {
    many.push_back(job(i % 3, "a"));
    todo.push_back(i);
  }
  CaseQueue q(many, todo, suite, true, false);
  ASSERT_EQ(q.size(), 3000u) << "neighbours of different cases are groups of their own";
  std::atomic<std::size_t> taken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      while (q.next() != nullptr) ++taken;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(taken.load(), 3000u);
}

// Until `n` callers wait at the gate (a thread's start may take long on a loaded machine).
void wait_for_waiters(MemoryGate& gate, uint64_t n) {
  while (gate.waiting() < n) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

TEST(MemoryGate, ACaseWaitsUntilTheHeldOnesLeaveRoom) {
  MemoryGate gate(100);
  ASSERT_TRUE(gate.acquire(60, nullptr));
  std::atomic<bool> second{false};
  std::thread waiter([&] {
    EXPECT_TRUE(gate.acquire(50, nullptr));
    second = true;
  });
  wait_for_waiters(gate, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(second.load()) << "60 + 50 is over 100: it waits";
  gate.release(60);
  waiter.join();
  EXPECT_TRUE(second.load());
  gate.release(50);
}

TEST(MemoryGate, ACaseBiggerThanTheWholeBudgetRunsAlone) {
  MemoryGate gate(100);
  EXPECT_TRUE(gate.acquire(500, nullptr)) << "nothing held: it runs, and its worker judges it as alone";
  std::atomic<bool> small{false};
  std::thread waiter([&] {
    EXPECT_TRUE(gate.acquire(1, nullptr));
    small = true;
  });
  wait_for_waiters(gate, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(small.load()) << "nothing beside a case over the budget";
  gate.release(500);
  waiter.join();
  gate.release(1);
}

TEST(MemoryGate, FirstComeFirstServedSoABigCaseIsNotStarved) {
  MemoryGate gate(100);
  ASSERT_TRUE(gate.acquire(50, nullptr));
  std::atomic<int> order{0}, big_at{-1}, small_at{-1};
  std::thread big([&] {
    EXPECT_TRUE(gate.acquire(95, nullptr));  // and the small one cannot fit beside it
    big_at = order++;
    gate.release(95);
  });
  wait_for_waiters(gate, 1);
  std::thread small([&] {
    EXPECT_TRUE(gate.acquire(10, nullptr)) << "it fits beside the 50 held, but the big case came first";
    small_at = order++;
    gate.release(10);
  });
  wait_for_waiters(gate, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(small_at.load(), -1);
  gate.release(50);
  big.join();
  small.join();
  EXPECT_EQ(big_at.load(), 0);
  EXPECT_EQ(small_at.load(), 1);
}

TEST(MemoryGate, AStopEndsTheWaitAndPassesTheTurnOn) {
  MemoryGate gate(100);
  ASSERT_TRUE(gate.acquire(100, nullptr));
  std::atomic<bool> stop{false};
  std::thread stopped([&] { EXPECT_FALSE(gate.acquire(10, [&] { return stop.load(); })); });
  wait_for_waiters(gate, 1);
  std::thread next([&] { EXPECT_TRUE(gate.acquire(10, nullptr)) << "the stopped caller's turn must not block it"; });
  wait_for_waiters(gate, 2);
  stop = true;
  stopped.join();
  gate.release(100);
  next.join();
  gate.release(10);
}

TEST(MemoryGate, CapacityZeroIsOff) {
  MemoryGate gate(0);
  EXPECT_TRUE(gate.acquire(1'000'000, nullptr));
  EXPECT_TRUE(gate.acquire(1'000'000, nullptr));
}

TEST(WorkersPerPlace, AskedWinsElseOnePerTwoCoresOfEachPlaceFromOneToFour) {
  EXPECT_EQ(workers_per_place(3, 2, 2, 1), 3);
  EXPECT_EQ(workers_per_place(0, 2, 2, 1), 1) << "two cores, a backend and its peer: one each";
  EXPECT_EQ(workers_per_place(0, 2, 16, 1), 4) << "an H200 host's 16 cores, a backend and its peer";
  EXPECT_EQ(workers_per_place(0, 2, 8, 1), 2);
  EXPECT_EQ(workers_per_place(0, 1, 128, 1), 4) << "at most 4";
  EXPECT_EQ(workers_per_place(0, 2, 16, 4), 1) << "four ranks on the node share its cores";
  EXPECT_EQ(workers_per_place(0, 0, 0, 0), 1) << "nothing known: one";
}

TEST(WorkerLogFile, TheFirstWorkerKeepsItsNameTheOthersAddTheirSlot) {
  const DeviceTag tag{.index = 1};
  EXPECT_EQ(worker_log_file("cpu", std::nullopt), "cpu.worker.log");
  EXPECT_EQ(worker_log_file("cpu", std::nullopt, 2), "cpu.worker2.log");
  EXPECT_EQ(worker_log_file("cpu", tag), "cpu.device1.worker.log");
  EXPECT_EQ(worker_log_file("cpu", tag, 1), "cpu.device1.worker1.log");
}

}  // namespace
}  // namespace opcert
