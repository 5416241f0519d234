// The size sweep of the collective bench and its figures: sizes, counts, nccl-tests' bus factors,
// the mean over the ranks, and the ratio to the best peer row.
#include <gtest/gtest.h>

#include "bench/collective_bench_job.h"
#include "bench/collective_sweep.h"
#include "model/input_error.h"

namespace opcert {
namespace {

// Collective `op` in `dtype` with the other fields at their defaults.
CollectiveSpec spec(const char* op, opcert_dtype dtype = OPCERT_DTYPE_F32) {
  CollectiveSpec s = CollectiveSpec::of_op(op);
  s.dtype = dtype;
  return s;
}

TEST(Sweep, StepsByTheFactorAndEndsAtTheMaximum) {
  EXPECT_EQ(sweep_sizes({1024, 8192, 2.0}), (std::vector<uint64_t>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(sweep_sizes({1024, 1024, 2.0}), (std::vector<uint64_t>{1024}));
  EXPECT_EQ(sweep_sizes({1000, 10000, 4.0}), (std::vector<uint64_t>{1000, 4000, 10000}));  // 16000 overshoots: the max ends it
}

TEST(Sweep, BadRangesAreInputErrors) {
  EXPECT_THROW(validate_sweep({2048, 1024, 2.0}), InputError);
  EXPECT_THROW(validate_sweep({0, 1024, 2.0}), InputError);
  EXPECT_THROW(validate_sweep({1, 1024, 1.0}), InputError);
  EXPECT_THROW(validate_sweep({1, 1024, 0.5}), InputError);
  EXPECT_NO_THROW(validate_sweep({1, 1024, 1.5}));
  try {
    validate_sweep({2048, 1024, 2.0});
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--min-bytes"), std::string::npos);
    EXPECT_NE(what.find("--max-bytes"), std::string::npos);
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line";
  }
}

TEST(Sweep, CountsFollowNcclTestsMeaningOfSize) {
  const uint64_t mib = 1 << 20;
  // all_reduce and broadcast: the buffer.
  EXPECT_EQ(count_for_size(spec("all_reduce", OPCERT_DTYPE_F32), mib, 4), 262144);
  EXPECT_EQ(count_for_size(spec("broadcast", OPCERT_DTYPE_BF16), mib, 4), 524288);
  // all_gather: the output; reduce_scatter: the input; all_to_all: the send buffer; all split by the ranks.
  EXPECT_EQ(count_for_size(spec("all_gather", OPCERT_DTYPE_F32), mib, 4), 65536);
  EXPECT_EQ(count_for_size(spec("reduce_scatter", OPCERT_DTYPE_F32), mib, 4), 65536);
  EXPECT_EQ(count_for_size(spec("all_to_all", OPCERT_DTYPE_F32), mib, 4), 65536);
  // Rounded down so that it divides among 3 ranks; the size reported is what actually moves.
  const int64_t c = count_for_size(spec("all_gather", OPCERT_DTYPE_F32), 1024, 3);
  EXPECT_EQ(c, 85);
  EXPECT_EQ(size_of_count(spec("all_gather", OPCERT_DTYPE_F32), c, 3), 1020u);
  // Never below one element.
  EXPECT_EQ(count_for_size(spec("all_to_all", OPCERT_DTYPE_F32), 4, 8), 1);
}

TEST(Sweep, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(spec("all_reduce").bus_factor(2), 1.0);
  EXPECT_DOUBLE_EQ(spec("all_reduce").bus_factor(4), 1.5);
  EXPECT_DOUBLE_EQ(spec("all_gather").bus_factor(4), 0.75);
  EXPECT_DOUBLE_EQ(spec("reduce_scatter").bus_factor(2), 0.5);
  EXPECT_DOUBLE_EQ(spec("all_to_all").bus_factor(8), 0.875);
  EXPECT_DOUBLE_EQ(spec("broadcast").bus_factor(8), 1.0);
  EXPECT_DOUBLE_EQ(spec("all_reduce").bus_factor(1), 0.0);
}

CollectiveBenchJob row(bool peer, std::vector<std::optional<double>> seconds, Status status = Status::kPassed) {
  CollectiveBenchJob j;
  j.peer = peer;
  j.spec = spec("all_reduce");
  j.bytes = 1'000'000'000;
  j.seconds = std::move(seconds);
  for (std::size_t r = 0; r < j.seconds.size(); ++r) {
    CaseResult c;
    c.status = status;
    c.message = "rank " + std::to_string(r);
    j.checks.emplace_back(c);
  }
  return j;
}

TEST(CollectiveFigures, TimeIsTheMeanOverTheRanksAndBusbwScalesAlgbw) {
  const CollectiveBenchJob j = row(false, {0.5, 1.5});
  ASSERT_TRUE(j.mean_seconds());
  EXPECT_DOUBLE_EQ(*j.mean_seconds(), 1.0);
  EXPECT_DOUBLE_EQ(*j.algbw_gbps(), 1.0);
  EXPECT_DOUBLE_EQ(*j.busbw_gbps(4), 1.5);
  EXPECT_FALSE(row(false, {0.5, std::nullopt}).mean_seconds()) << "a rank that did not time leaves the row without a time";
}

TEST(CollectiveFigures, RatioIsOverTheBestPassingPeer) {
  std::vector<CollectiveBenchJob> jobs = {row(true, {2.0, 2.0}), row(true, {1.0, 1.0}), row(true, {0.1, 0.1}, Status::kFailed),
                                          row(false, {0.8, 0.8})};
  EXPECT_DOUBLE_EQ(*peer_busbw_gbps(jobs[3], jobs, 2), 1.0);  // the failed peer does not count
  EXPECT_DOUBLE_EQ(*ratio_vs_peer(jobs[3], jobs, 2), 1.25);
  EXPECT_FALSE(ratio_vs_peer(jobs[0], jobs, 2)) << "a peer has no ratio";
  jobs[1].bytes = 5;  // another size: not comparable
  EXPECT_DOUBLE_EQ(*ratio_vs_peer(jobs[3], jobs, 2), 2.5);  // over the 2 s peer left at this size
}

TEST(CollectiveFigures, TheWorstRankGivesTheRowItsStatus) {
  CollectiveBenchJob j = row(false, {1.0, 1.0, 1.0});
  j.checks[1]->status = Status::kFailed;
  j.checks[2]->status = Status::kTimeout;
  EXPECT_EQ(j.status(), Status::kTimeout);
  EXPECT_EQ(j.message(), "rank 2");
  j.checks[2].reset();
  EXPECT_EQ(j.status(), Status::kError);
}

}  // namespace
}  // namespace opcert
