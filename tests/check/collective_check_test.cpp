// Collective cases: the builders' parameters, the per-rank sizes and in-place layout, the exact
// integer inputs, and the per-rank check, which must pass a correct output and name the rank,
// index, got and expected of a wrong one.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>

#include "ops/op_test_support.h"
#include "opkit/collective.h"
#include "check/collectives/rank_check.h"
#include "check/collectives/rank_inputs.h"
#include "model/scalar_codec.h"

namespace opcert {
namespace {

using nlohmann::json;

CollectiveSpec spec_of(const std::string& op, const json& params) { return CollectiveSpec::of(test::build_case(op, params)); }

std::string error_of(const std::string& op, const json& params) {
  try {
    test::build_case(op, params);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// What a correct implementation leaves in rank `rank`'s y, computed independently of
// expected_output: from the stored input tensors, with the reduction in reverse rank order.
HostTensor simulated_output(const CollectiveSpec& s, const RankInputs& in, int rank) {
  const int n = in.ranks();
  std::vector<HostTensor> x;
  for (int r = 0; r < n; ++r) x.push_back(in.tensor(r));
  HostTensor y(TensorSpec{"y", s.dtype, {s.output_elements(n)}, {}});
  const auto reduce_at = [&](int64_t i) {
    double acc = x[n - 1].value(i);
    for (int r = n - 2; r >= 0; --r) {
      const double v = x[r].value(i);
      acc = s.reduce == ReduceOp::kMax ? std::max(acc, v) : s.reduce == ReduceOp::kMin ? std::min(acc, v) : acc + v;
    }
    if (s.reduce == ReduceOp::kAvg) acc = s.dtype == OPCERT_DTYPE_I32 ? std::trunc(acc / n) : acc / n;
    return acc;
  };
  const int64_t c = s.count;
  for (int64_t i = 0; i < y.spec.numel(); ++i) {
    double v = 0;
    if (s.op == "all_reduce") v = reduce_at(i);
    else if (s.op == "reduce_scatter") v = reduce_at(rank * c + i);
    else if (s.op == "all_gather") v = x[i / c].value(i % c);
    else if (s.op == "broadcast") v = x[*s.root_rank(n)].value(i);
    else if (s.op == "all_to_all") v = x[i / c].value(rank * c + i % c);
    else throw std::logic_error("no oracle for " + s.op);
    store_as(s.dtype, v, y.bytes.data() + i * y.bytes.size() / y.spec.numel());
  }
  return y;
}

TEST(CollectiveCase, BuilderSetsOperandsAndAttributes) {
  const Case c = test::build_case("all_reduce", {{"dtype", "bf16"}, {"count", 7}, {"reduce_op", "max"}, {"in_place", true}});
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].name, "x");
  EXPECT_EQ(c.outputs[0].name, "y");
  EXPECT_EQ(c.inputs[0].shape, std::vector<int64_t>{7});
  const CollectiveSpec s = CollectiveSpec::of(c);
  EXPECT_EQ(s.op, "all_reduce");
  EXPECT_EQ(s.dtype, OPCERT_DTYPE_BF16);
  EXPECT_EQ(s.reduce, ReduceOp::kMax);
  EXPECT_TRUE(s.in_place);
  EXPECT_EQ(attr_string(c.attrs, "reduce_op", ""), "max");
  EXPECT_EQ(c.fill_mode, FillMode::kExact);
}

TEST(CollectiveCase, BadParametersAreNamed) {
  EXPECT_NE(error_of("all_reduce", {{"dtype", "fp32"}, {"count", 4}, {"reduce_op", "prod"}}).find("reduce_op"), std::string::npos);
  EXPECT_NE(error_of("all_gather", {{"dtype", "fp32"}, {"count", 4}, {"reduce_op", "sum"}}).find("unknown parameter 'reduce_op'"),
            std::string::npos);
  EXPECT_NE(error_of("broadcast", {{"dtype", "fp32"}, {"count", -1}}).find("count"), std::string::npos);
  EXPECT_NE(error_of("all_to_all", {{"dtype", "int8"}, {"count", 4}}).find("dtype"), std::string::npos);
  EXPECT_NE(error_of("all_reduce", {{"dtype", "fp32"}}).find("count"), std::string::npos);
}

TEST(CollectiveSpec, SizesAndInPlaceLayoutFollowNccl) {
  const auto ag = spec_of("all_gather", {{"dtype", "fp32"}, {"count", 5}});
  EXPECT_EQ(ag.input_elements(4), 5);
  EXPECT_EQ(ag.output_elements(4), 20);
  EXPECT_EQ(ag.in_place_output_offset(3), -15);
  const auto rs = spec_of("reduce_scatter", {{"dtype", "fp32"}, {"count", 5}});
  EXPECT_EQ(rs.input_elements(4), 20);
  EXPECT_EQ(rs.output_elements(4), 5);
  EXPECT_EQ(rs.in_place_output_offset(3), 15);
  const auto a2a = spec_of("all_to_all", {{"dtype", "fp32"}, {"count", 5}});
  EXPECT_EQ(a2a.input_elements(4), 20);
  EXPECT_EQ(a2a.output_elements(4), 20);
  EXPECT_EQ(a2a.in_place_output_offset(2), 0);
}

TEST(CollectiveSpec, RootCountsFromTheEndWhenNegative) {
  const auto last = spec_of("broadcast", {{"dtype", "fp32"}, {"count", 5}, {"root", -1}});
  EXPECT_EQ(last.root_rank(4), 3);
  EXPECT_EQ(last.root_rank(1), 0);
  const auto two = spec_of("broadcast", {{"dtype", "fp32"}, {"count", 5}, {"root", 2}});
  EXPECT_FALSE(two.root_rank(2));
  EXPECT_NE(collective_unrunnable(two, 2).find("root 2"), std::string::npos);
  EXPECT_EQ(collective_unrunnable(two, 3), "");
}

TEST(CollectiveSpec, SumsStayExactOrTheCaseCannotRun) {
  const auto bf16 = spec_of("all_reduce", {{"dtype", "bf16"}, {"count", 5}});
  EXPECT_EQ(collective_value_bound(bf16, 4), 8);
  EXPECT_EQ(collective_value_bound(bf16, 64), 4);  // 64 ranks x 4 = 256 = 2^8
  EXPECT_EQ(collective_value_bound(bf16, 256), 1);
  EXPECT_EQ(collective_unrunnable(bf16, 256), "");
  EXPECT_NE(collective_unrunnable(bf16, 257).find("exact"), std::string::npos);
  const auto bf16_max = spec_of("all_reduce", {{"dtype", "bf16"}, {"count", 5}, {"reduce_op", "max"}});
  EXPECT_EQ(collective_value_bound(bf16_max, 4), 100);
  EXPECT_EQ(collective_unrunnable(bf16_max, 1000), "");
}

TEST(RankInputs, IntegersInBoundDifferingByRankAndReproducible) {
  const auto s = spec_of("all_reduce", {{"dtype", "fp16"}, {"count", 1000}});
  const RankInputs a(s, 7, "case", 4), b(s, 7, "case", 4);
  std::set<double> seen;
  int64_t differ = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    const double v = a.value(1, i);
    EXPECT_EQ(v, std::floor(v));
    EXPECT_LE(std::fabs(v), 8.0);
    EXPECT_EQ(v, b.value(1, i));
    EXPECT_EQ(v, a.tensor(1).value(i));
    differ += a.value(0, i) != v;
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 17u);  // every integer of [-8, 8]
  EXPECT_GT(differ, 800);
}

struct OpParams {
  const char* op;
  json params;
};

class EveryCollective : public ::testing::TestWithParam<OpParams> {};

TEST_P(EveryCollective, CorrectOutputPassesOnEveryRankAndAWrongElementIsNamed) {
  for (int ranks : {1, 2, 3, 4}) {
    const Case c = test::build_case(GetParam().op, GetParam().params);
    const CollectiveSpec s = CollectiveSpec::of(c);
    if (!collective_unrunnable(s, ranks).empty()) continue;
    const RankInputs in(s, 3, c.id, ranks);
    for (int rank = 0; rank < ranks; ++rank) {
      HostTensor y = simulated_output(s, in, rank);
      const ExpectedOutput want = expected_output(s, in, rank);
      std::string why;
      const TensorMetrics ok = compare_rank_output(y, want, rank, why);
      EXPECT_EQ(ok.mismatches, 0) << c.id << " ranks " << ranks << ": " << why;
      EXPECT_EQ(why, "");
      if (y.spec.numel() == 0) continue;
      // One element off by one: caught, with its coordinates.
      const int64_t i = y.spec.numel() / 2;
      const double was = y.value(i);
      store_as(s.dtype, was + 1, y.bytes.data() + i * (y.bytes.size() / y.spec.numel()));
      const TensorMetrics bad = compare_rank_output(y, want, rank, why);
      EXPECT_EQ(bad.mismatches, 1) << c.id;
      EXPECT_EQ(why, fmt::format("rank {}, y[{}]: got {}, expected {}", rank, i, y.value(i), want.values[i]));
      EXPECT_EQ(bad.worst.index, i);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ops, EveryCollective,
    ::testing::Values(OpParams{"all_reduce", {{"dtype", "fp32"}, {"count", 33}}},
                      OpParams{"all_reduce", {{"dtype", "bf16"}, {"count", 33}, {"reduce_op", "avg"}}},
                      OpParams{"all_reduce", {{"dtype", "int32"}, {"count", 33}, {"reduce_op", "avg"}}},
                      OpParams{"all_reduce", {{"dtype", "fp16"}, {"count", 33}, {"reduce_op", "min"}}},
                      OpParams{"reduce_scatter", {{"dtype", "bf16"}, {"count", 9}, {"reduce_op", "max"}}},
                      OpParams{"reduce_scatter", {{"dtype", "fp16"}, {"count", 9}}},
                      OpParams{"all_gather", {{"dtype", "int32"}, {"count", 9}}},
                      OpParams{"broadcast", {{"dtype", "fp32"}, {"count", 9}, {"root", -1}}},
                      OpParams{"all_to_all", {{"dtype", "bf16"}, {"count", 9}}},
                      OpParams{"all_to_all", {{"dtype", "fp32"}, {"count", 0}}}));

TEST(RankCheck, SwappedGatherBlocksFail) {
  const auto s = spec_of("all_gather", {{"dtype", "fp32"}, {"count", 64}});
  const RankInputs in(s, 1, "all_gather.swap", 2);
  HostTensor y = simulated_output(s, in, 0);
  std::rotate(y.bytes.begin(), y.bytes.begin() + y.bytes.size() / 2, y.bytes.end());
  std::string why;
  EXPECT_GT(compare_rank_output(y, expected_output(s, in, 0), 0, why).mismatches, 32);
  EXPECT_NE(why.find("rank 0, y["), std::string::npos);
  EXPECT_NE(why.find("elements differ"), std::string::npos);
}

TEST(RankCheck, AvgOverThreeRanksAllowsItsRoundingAndNoMore) {
  const auto s = spec_of("all_reduce", {{"dtype", "bf16"}, {"count", 256}, {"reduce_op", "avg"}});
  const RankInputs in(s, 1, "avg3", 3);
  const ExpectedOutput want = expected_output(s, in, 0);
  EXPECT_DOUBLE_EQ(want.bound, 4 * std::ldexp(1.0, -8) * 8);
  const ExpectedOutput exact = expected_output(s, RankInputs(s, 1, "avg3", 4), 0);
  EXPECT_EQ(exact.bound, 0.0);  // 1/4 is exact
}

TEST(RankCheck, UnwrittenOutputIsNaNAndFails) {
  const auto s = spec_of("all_reduce", {{"dtype", "fp16"}, {"count", 8}});
  const RankInputs in(s, 1, "nan", 2);
  HostTensor y(TensorSpec{"y", s.dtype, {8}, {}});
  std::fill(y.bytes.begin(), y.bytes.end(), std::byte{0xFF});
  std::string why;
  const TensorMetrics m = compare_rank_output(y, expected_output(s, in, 1), 1, why);
  EXPECT_EQ(m.mismatches, 8);
  EXPECT_EQ(m.nan_inf_mismatches, 8);
  EXPECT_NE(why.find("got nan"), std::string::npos);
}

}  // namespace
}  // namespace opcert
