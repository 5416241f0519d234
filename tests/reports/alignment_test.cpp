#include "reports/alignment.h"

#include <gtest/gtest.h>

#include <cmath>

#include "reports/run_summary.h"
#include "sample_report.h"

namespace opcert {
namespace {

using test::result;

TEST(FillAlignment, RatioIsOwnRmseOverTorchRmseOfTheSameCase) {
  std::vector<CaseResult> rs{result("cpu", "gemm", "g1", Status::kPassed, 0.5),
                             result("torch", "gemm", "g1", Status::kPassed, 0.2),
                             result("cuda", "gemm", "g1", Status::kFailed, 0.03)};
  fill_alignment(rs, "torch");
  EXPECT_DOUBLE_EQ(rs[0].peer_rmse.value(), 0.2);
  EXPECT_DOUBLE_EQ(rs[0].alignment_ratio.value(), 2.5);   // 0.5 / 0.2
  EXPECT_DOUBLE_EQ(rs[2].alignment_ratio.value(), 0.15);  // 0.03 / 0.2
  // The peer itself is left alone.
  EXPECT_FALSE(rs[1].peer_rmse.has_value());
  EXPECT_FALSE(rs[1].alignment_ratio.has_value());
}

// gemm.fp32.m1.n1.k256 of the issue: one element, the backend's error 0.023 of its bound, the
// peer's by luck 0.00116 of it; unfloored the ratio was 19.8, and it was the op's worst.
TEST(FillAlignment, ANearExactErrorOnFewElementsIsFlooredAtASixteenthOfTheBoundOverRootN) {
  const double bound = 1e-3;
  const auto bounded = [&](CaseResult r, int64_t elements) {
    r.metrics.front().bound_rms = bound;
    r.metrics.front().checked = elements;
    return r;
  };
  std::vector<CaseResult> rs{bounded(result("cpu", "gemm", "m1", Status::kPassed, 0.023 * bound), 1),
                             bounded(result("torch", "gemm", "m1", Status::kPassed, 0.00116 * bound), 1),
                             bounded(result("cpu", "gemm", "big", Status::kPassed, 0.04 * bound), 2048),
                             bounded(result("torch", "gemm", "big", Status::kPassed, 0.01 * bound), 2048)};
  fill_alignment(rs, "torch");
  EXPECT_DOUBLE_EQ(rs[0].alignment_ratio.value(), 1.0);  // both under bound / 16: neither is better
  EXPECT_DOUBLE_EQ(rs[0].peer_rmse.value(), 0.00116 * bound);  // the peer's own figure is kept
  // Over 2048 elements the floor is bound / (16 sqrt(2048)), 0.0014 of it: the same errors' ratio stands.
  EXPECT_DOUBLE_EQ(rs[2].alignment_ratio.value(), 4.0);
  RunReport report;
  report.results = rs;
  EXPECT_DOUBLE_EQ(summarize_results(report).front().worst_alignment_ratio.value(), 4.0);

  // Only one of them under the floor: it counts as the floor.
  EXPECT_DOUBLE_EQ(floored_alignment_ratio(0.5 * bound, 0.001 * bound, bound, 1).value(), 8.0);
  EXPECT_DOUBLE_EQ(floored_alignment_ratio(0.001 * bound, 0.5 * bound, bound, 1).value(), 0.125);
  EXPECT_DOUBLE_EQ(floored_alignment_ratio(0.5 * bound, 0.001 * bound, bound, 4).value(), 16.0);  // floor / 2
  // No bound (exact outputs, quantized codes, older reports): no floor.
  EXPECT_DOUBLE_EQ(floored_alignment_ratio(0.023, 0.00116, 0.0, 1).value(), 0.023 / 0.00116);
  EXPECT_FALSE(floored_alignment_ratio(0.5, 0.0, 0.0, 1).has_value());
}

TEST(FillAlignment, EachDevicesResultIsComparedWithThePeersOnThatDeviceElseItsOneResult) {
  const auto on = [](CaseResult r, int device) {
    r.device = DeviceTag{device, "d" + std::to_string(device), "h"};
    return r;
  };
  // The peer ran once, untagged: every device's result is compared with it.
  std::vector<CaseResult> once{on(result("cpu", "gemm", "g1", Status::kPassed, 0.4), 0),
                               on(result("cpu", "gemm", "g1", Status::kFailed, 0.8), 1),
                               result("torch", "gemm", "g1", Status::kPassed, 0.2)};
  fill_alignment(once, "torch");
  EXPECT_DOUBLE_EQ(once[0].alignment_ratio.value(), 2.0);
  EXPECT_DOUBLE_EQ(once[1].alignment_ratio.value(), 4.0);
  // The peer ran on the devices too: device by device.
  std::vector<CaseResult> each{on(result("cpu", "gemm", "g1", Status::kPassed, 0.4), 1),
                               on(result("torch", "gemm", "g1", Status::kPassed, 0.1), 0),
                               on(result("torch", "gemm", "g1", Status::kPassed, 0.2), 1)};
  fill_alignment(each, "torch");
  EXPECT_DOUBLE_EQ(each[0].peer_rmse.value(), 0.2);
}

TEST(FillAlignment, UsesThePrimaryOutputOfBoth) {
  auto own = result("cpu", "rope", "r1", Status::kPassed, 0.4);
  own.metrics.push_back(test::metrics("k_out", 100.0));
  auto peer = result("torch", "rope", "r1", Status::kPassed, 0.1);
  peer.metrics.push_back(test::metrics("k_out", 1e-9));
  std::vector<CaseResult> rs{own, peer};
  fill_alignment(rs, "torch");
  EXPECT_DOUBLE_EQ(rs[0].peer_rmse.value(), 0.1);
  EXPECT_DOUBLE_EQ(rs[0].alignment_ratio.value(), 4.0);
}

TEST(FillAlignment, ZeroTorchRmse) {
  std::vector<CaseResult> rs{result("cpu", "gemm", "exact", Status::kPassed, 0.0),
                             result("cuda", "gemm", "exact", Status::kFailed, 0.125),
                             result("torch", "gemm", "exact", Status::kPassed, 0.0)};
  fill_alignment(rs, "torch");
  EXPECT_DOUBLE_EQ(rs[0].alignment_ratio.value(), 1.0);  // both exact
  EXPECT_DOUBLE_EQ(rs[0].peer_rmse.value(), 0.0);
  EXPECT_FALSE(rs[1].alignment_ratio.has_value());       // would be infinite
  EXPECT_DOUBLE_EQ(rs[1].peer_rmse.value(), 0.0);
}

TEST(FillAlignment, OnlyAPassedOrFailedPeerWithMetricsCounts) {
  std::vector<CaseResult> rs{result("cpu", "gemm", "a", Status::kPassed, 0.5),
                             result("torch", "gemm", "a", Status::kSkipped),
                             result("cpu", "gemm", "b", Status::kPassed, 0.5),
                             result("torch", "gemm", "b", Status::kError),
                             result("cpu", "gemm", "c", Status::kPassed, 0.5),
                             result("torch", "gemm", "c", Status::kMistrusted, 0.1),
                             result("cpu", "gemm", "d", Status::kPassed, 0.5),
                             result("torch", "gemm", "d", Status::kFailed, 0.25)};
  fill_alignment(rs, "torch");
  for (int i : {0, 2, 4}) {
    EXPECT_FALSE(rs[i].peer_rmse.has_value()) << rs[i].case_id;
    EXPECT_FALSE(rs[i].alignment_ratio.has_value()) << rs[i].case_id;
  }
  EXPECT_DOUBLE_EQ(rs[6].alignment_ratio.value(), 2.0);
}

TEST(FillAlignment, MatchesOnSuiteAndCaseId) {
  auto other_suite = result("torch", "gemm", "g1", Status::kPassed, 0.1);
  other_suite.suite = "full";
  std::vector<CaseResult> rs{result("cpu", "gemm", "g1", Status::kPassed, 0.5), other_suite,
                             result("torch", "gemm", "g2", Status::kPassed, 0.1)};
  fill_alignment(rs, "torch");
  EXPECT_FALSE(rs[0].peer_rmse.has_value());
  EXPECT_FALSE(rs[0].alignment_ratio.has_value());
}

TEST(FillAlignment, OwnResultWithoutMetricsGetsTorchRmseOnly) {
  std::vector<CaseResult> rs{result("cpu", "gemm", "g1", Status::kTimeout),
                             result("torch", "gemm", "g1", Status::kPassed, 0.1)};
  fill_alignment(rs, "torch");
  EXPECT_DOUBLE_EQ(rs[0].peer_rmse.value(), 0.1);
  EXPECT_FALSE(rs[0].alignment_ratio.has_value());
}

TEST(FillAlignment, NanOwnRmseGivesNanRatio) {
  std::vector<CaseResult> rs{result("cpu", "gemm", "g1", Status::kFailed, std::nan("")),
                             result("torch", "gemm", "g1", Status::kPassed, 0.1)};
  fill_alignment(rs, "torch");
  ASSERT_TRUE(rs[0].alignment_ratio.has_value());
  EXPECT_TRUE(std::isnan(*rs[0].alignment_ratio));
}

TEST(FillAlignment, PeerNameIsAParameter) {
  std::vector<CaseResult> rs{result("cpu", "gemm", "g1", Status::kPassed, 0.3),
                             result("torch", "gemm", "g1", Status::kPassed, 0.1),
                             result("ref", "gemm", "g1", Status::kPassed, 0.6)};
  fill_alignment(rs, "ref");
  EXPECT_DOUBLE_EQ(rs[0].alignment_ratio.value(), 0.5);
  EXPECT_DOUBLE_EQ(rs[1].alignment_ratio.value(), 1.0 / 6.0);
  EXPECT_FALSE(rs[2].alignment_ratio.has_value());
}

TEST(FillAlignment, SampleReportFiguresByHand) {
  const auto report = test::sample_report();
  const auto& rs = report.results;
  EXPECT_DOUBLE_EQ(rs[0].alignment_ratio.value(), 2.5);  // cpu g1 0.5 / 0.2
  EXPECT_TRUE(std::isnan(rs[1].alignment_ratio.value()));
  EXPECT_DOUBLE_EQ(rs[2].alignment_ratio.value(), 1.0);  // cpu g3 0 / 0
  EXPECT_FALSE(rs[3].peer_rmse.has_value());            // softmax: torch did not run it
  EXPECT_DOUBLE_EQ(rs[5].alignment_ratio.value(), 0.5);  // acme g1 0.1 / 0.2
  EXPECT_DOUBLE_EQ(rs[6].peer_rmse.value(), 0.25);      // acme g2 timed out
  EXPECT_FALSE(rs[6].alignment_ratio.has_value());
}

}  // namespace
}  // namespace opcert
