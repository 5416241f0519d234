// What every op's case builder shares through the op table (harness/opkit): each catalogue op has
// one, the sample default, specials planted in the first input, and parameter errors that name the
// parameter. Each op's own operands are tested in tests/ops/<op>/.
#include "ops/op_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace opcert {
namespace {

using nlohmann::json;
using test::error_of;
using test::input;

Case build(const std::string& op, const json& params) { return test::build_case(op, params); }

TEST(CaseBuilder, EveryCatalogueOpHasOne) {
  for (const char* op : {"gemm", "gemm_fp8", "gemm_int8", "quantize", "attention", "rms_norm", "layer_norm", "rope",
                         "softmax", "all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"}) {
    const OpDescriptor* d = find_op(op);
    ASSERT_NE(d, nullptr) << op;
    EXPECT_NE(d->build, nullptr) << op;
    EXPECT_NE(d->params, nullptr) << op;
  }
  EXPECT_EQ(find_op("nonsense"), nullptr);
}

TEST(CaseBuilder, SampleDefaultsToWholeUpToTwoToThe22Outputs) {
  EXPECT_EQ(build("gemm", {{"dtype", "bf16"}, {"m", 2048}, {"n", 2048}, {"k", 1}}).sample_elements, 0);  // exactly 2^22
  EXPECT_EQ(build("gemm", {{"dtype", "bf16"}, {"m", 2049}, {"n", 2048}, {"k", 1}}).sample_elements, 65536);
  EXPECT_EQ(build("gemm", {{"dtype", "bf16"}, {"m", 8}, {"n", 8}, {"k", 1}, {"sample", 10}}).sample_elements, 10);
}

TEST(CaseBuilder, SpecialsArePlantedInTheFirstInput) {
  const auto c = build("gemm", {{"dtype", "fp16"}, {"m", 64}, {"n", 8}, {"k", 64}, {"specials", {"nan", "inf", "large"}}});
  const auto& fill = input(c, "a").fill;
  EXPECT_EQ(fill.special_every, 97);
  ASSERT_EQ(fill.specials.size(), 3u);
  EXPECT_TRUE(std::isnan(fill.specials[0]));
  EXPECT_EQ(fill.specials[1], INFINITY);
  EXPECT_EQ(fill.specials[2], 4096.0);  // fp16's large magnitude
  EXPECT_EQ(input(c, "b").fill.special_every, 0);
  EXPECT_EQ(fill.special_span, 32 * 64);  // NaN and inf in the first half of a's rows only: the rest stay finite
  for (const char* tag : {"nan", "inf", "large"}) EXPECT_NE(std::find(c.tags.begin(), c.tags.end(), tag), c.tags.end()) << tag;
  // A tiny tensor still gets one: every n/2-th element of the rows that take them.
  const auto tiny = build("softmax", {{"dtype", "fp32"}, {"rows", 8}, {"n", 1}, {"specials", {"-inf"}}});
  EXPECT_EQ(input(tiny, "x").fill.special_span, 4);
  EXPECT_EQ(input(tiny, "x").fill.special_every, 2);
  EXPECT_EQ(input(tiny, "x").fill.specials, (std::vector<double>{-INFINITY}));
  const auto bf16 = build("rms_norm", {{"dtype", "bf16"}, {"t", 4}, {"h", 64}, {"specials", {"-large"}}});
  EXPECT_EQ(input(bf16, "x").fill.specials, (std::vector<double>{-std::ldexp(1.0, 56)}));
  EXPECT_EQ(input(bf16, "x").fill.special_span, 0);  // finite specials go everywhere
  // One row: nowhere to keep finite, so the whole row takes them.
  EXPECT_EQ(input(build("softmax", {{"dtype", "fp32"}, {"rows", 1}, {"n", 300}, {"specials", {"nan"}}}), "x").fill.special_span, 0);
}

TEST(CaseBuilder, ParameterErrorsNameTheParameter) {
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}, {"k", 1}, {"bais", true}}),
            "unknown parameter 'bais' for gemm; known: dtype, m, n, k, b_layout, bias, allow_tf32, fill, specials, sample");
  EXPECT_EQ(error_of("gemm", {{"dtype", "int8"}, {"m", 1}, {"n", 1}, {"k", 1}}),
            "parameter 'dtype' must be a dtype among fp32, fp16, bf16, not \"int8\"");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}}), "missing required parameter 'k' for gemm");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1.5}, {"n", 1}, {"k", 1}}), "parameter 'm' must be an integer, not 1.5");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", -1}, {"n", 1}, {"k", 1}}), "parameter 'm' must be >= 0, not -1");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}, {"k", 1}, {"bias", 1}}),
            "parameter 'bias' must be true or false, not 1");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}, {"k", 1}, {"b_layout", "t"}}),
            "parameter 'b_layout' must be one of nk, kn, not \"t\"");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}, {"k", 1}, {"specials", {"zero"}}}),
            "parameter 'specials' holds 'zero'; known: nan, inf, -inf, large, -large");
  EXPECT_EQ(error_of("gemm", json::array()), "params must be an object, not array");
  EXPECT_NE(error_of("softmax", {{"dtype", "fp32"}, {"n", 4}, {"fill", "exact"}}).find("use fill 'random'"), std::string::npos);
}

}  // namespace
}  // namespace opcert
