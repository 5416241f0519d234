#include "reports/alignment.h"

#include <gtest/gtest.h>

#include <cmath>

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
