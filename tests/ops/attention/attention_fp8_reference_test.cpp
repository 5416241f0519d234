// The fp8 attention bound (docs/TOLERANCES.md, "fp8 attention") against FlashAttention-3's fp8
// forward, simulated here in fp32: on a case the real builder makes (e4m3 codes with descales) it
// passes by a margin; on a row whose many alike keys round their p the same way, its error is
// past what bf16's allowance for p would give and within the e4m3 term; and on a row of small
// probabilities, the same kernel without FlashAttention-3's shift of p by 2^8 fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "check/compare.h"
#include "check/fill.h"
#include "check/tolerance.h"
#include "model/attr.h"
#include "model/scalar_codec.h"
#include "ops/op_test_support.h"
#include "ops/reference_test_util.h"
#include "reference/reference.h"

namespace opcert {
namespace {

constexpr uint64_t kSeed = 7;

// A BSHD fp8 case, its inputs and its golden o.
struct Fp8Attention {
  Case c;
  std::vector<HostTensor> inputs;
  ReferenceOutput o;

  Fp8Attention(Case c_, std::vector<HostTensor> inputs_) : c(std::move(c_)), inputs(std::move(inputs_)) {
    o = compute_reference(c, inputs, {}).at(0);
  }
  const HostTensor* find(const std::string& name) const {
    for (const HostTensor& t : inputs)
      if (t.spec.name == name) return &t;
    return nullptr;
  }
  // The descale of (batch entry b, KV head g), 1 when the case has none.
  float descale(const std::string& name, int64_t index) const {
    const HostTensor* t = find(name);
    return t ? static_cast<float>(t->value(index)) : 1.0f;
  }

  // FlashAttention-3's arithmetic (hopper/softmax.h, Max_offset = 8): e4m3 products summed in
  // fp32, the descales folded into the fp32 score scale, p = 2^shift exp(s - max) in fp32, the row
  // sum from those, P rounded to e4m3 for P·V, then v's descale and 1/sum, o rounded to bf16.
  HostTensor forward(int shift) const {
    const HostTensor &q = *find("q"), &k = *find("k"), &v = *find("v");
    const auto& qs = q.spec.shape;
    const int64_t B = qs[0], Sq = qs[1], Hq = qs[2], D = qs[3], Skv = k.spec.shape[1], Hkv = k.spec.shape[2];
    const auto scale = static_cast<float>(attr_float(c.attrs, "scale", 1.0 / std::sqrt(static_cast<double>(D))));
    HostTensor got(*c.find_output("o"));
    std::vector<float> s(static_cast<std::size_t>(Skv)), p8(static_cast<std::size_t>(Skv));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t g = h / (Hq / Hkv), group = b * Hkv + g;
        const float fold = scale * descale("q_descale", group) * descale("k_descale", group);
        for (int64_t i = 0; i < Sq; ++i) {
          float m = -INFINITY;
          for (int64_t j = 0; j < Skv; ++j) {
            float acc = 0.0f;
            for (int64_t d = 0; d < D; ++d)
              acc += static_cast<float>(q.value(((b * Sq + i) * Hq + h) * D + d) * k.value(((b * Skv + j) * Hkv + g) * D + d));
            s[j] = acc * fold;
            m = std::max(m, s[j]);
          }
          float sum = 0.0f;
          for (int64_t j = 0; j < Skv; ++j) {
            const float e = std::ldexp(std::exp(s[j] - m), shift);
            sum += e;
            p8[j] = static_cast<float>(round_to(OPCERT_DTYPE_F8_E4M3FN, e));
          }
          for (int64_t d = 0; d < D; ++d) {
            float acc = 0.0f;
            for (int64_t j = 0; j < Skv; ++j) acc += p8[j] * static_cast<float>(v.value(((b * Skv + j) * Hkv + g) * D + d));
            const float out = acc * descale("v_descale", group) / sum;
            store_as(OPCERT_DTYPE_BF16, out, got.bytes.data() + 2 * (((b * Sq + i) * Hq + h) * D + d));
          }
        }
      }
    return got;
  }

  TensorMetrics check(const HostTensor& got) const { return compare_output(got, o, output_tolerance(c, o)); }
};

// A case of the shipped builder: e4m3 codes over the format's range, descales per (b, KV head).
Fp8Attention built_case(int64_t skv) {
  Case c = test::build_case("attention", {{"dtype", "e4m3"}, {"b", 2}, {"sq", 8}, {"skv", skv}, {"hq", 4}, {"hkv", 2},
                                          {"d", 64}, {"descale", true}});
  std::vector<HostTensor> inputs;
  for (const TensorSpec& spec : c.inputs) inputs.push_back(generate_input(spec, kSeed, c.id));
  return Fp8Attention(std::move(c), std::move(inputs));
}

// One query (D = 1, q = 1) against key 0 (k = 0, s = 0, the maximum) and n alike keys (k = -1,
// s = -scale), every v = 1: o = 1 and sum p|v| = 1, and all n probabilities round alike.
Fp8Attention alike_keys(int64_t n, double scale) {
  testing::CaseUnderTest t("attention");
  const opcert_dtype e4m3 = OPCERT_DTYPE_F8_E4M3FN;
  std::vector<double> k(static_cast<std::size_t>(n + 1), -1.0);
  k[0] = 0.0;
  t.input("q", e4m3, {1, 1, 1, 1}, {1});
  t.input("k", e4m3, {1, n + 1, 1, 1}, k);
  t.input("v", e4m3, {1, n + 1, 1, 1}, std::vector<double>(static_cast<std::size_t>(n + 1), 1.0));
  t.output("o", OPCERT_DTYPE_BF16, {1, 1, 1, 1}).attr("scale", scale);
  return Fp8Attention(t.c, t.inputs);
}

TEST(AttentionFp8Bound, FlashAttention3PassesWithMarginOnTheBuildersCases) {
  for (int64_t skv : {128, 512}) {
    const Fp8Attention t = built_case(skv);
    const TensorMetrics m = t.check(t.forward(8));
    EXPECT_EQ(m.mismatches, 0) << "Skv " << skv;
    EXPECT_LT(m.error_ratio, 0.5) << "Skv " << skv << ": with margin";
    std::string message;
    EXPECT_EQ(judge({m}, message), Status::kPassed) << message;
  }
}

TEST(AttentionFp8Bound, AlikeKeysRoundingPInE4m3NeedTheE4m3Term) {
  // 2^8 exp(-scale) = 135.9 lies just under the midpoint of e4m3's 128 and 144: each of the 256
  // alike keys loses 5.8% of its p, so o = (256 + 256·128) / (256 + 256·135.9) = 0.9423.
  const Fp8Attention t = alike_keys(256, std::log(256 / 135.9));
  const HostTensor got = t.forward(8);
  const double error = std::fabs(got.value(0) - t.o.values[0]);
  EXPECT_NEAR(error, 1 - 33024.0 / (256 + 256 * 135.9), 0x1.0p-8);
  // The bound with bf16's 2u for p in place of the e4m3 term would refuse it.
  const OutputTolerance tol = output_tolerance(t.c, t.o);
  const double bf16_p = tol.bound(0, t.o.values[0]) - 0x1.0p-4 * t.o.magnitude[0] + 0x1.0p-7 * t.o.magnitude[0];
  EXPECT_GT(error, bf16_p);
  const TensorMetrics m = t.check(got);
  EXPECT_EQ(m.mismatches, 0);
  EXPECT_GT(m.error_ratio, 0.5) << "the e4m3 term is what admits it";
}

TEST(AttentionFp8Bound, PInE4m3WithoutTheShiftFailsOnSmallProbabilities) {
  // exp(-scale) = 0.00292, below e4m3's normal range unshifted: it rounds to 2^-9 and 2048 alike
  // keys lose a third of their weight. Shifted by 2^8 it is 0.7475, held to 0.3%.
  const Fp8Attention t = alike_keys(2048, -std::log(0.00292));
  EXPECT_EQ(t.check(t.forward(8)).mismatches, 0);
  const TensorMetrics unshifted = t.check(t.forward(0));
  EXPECT_EQ(unshifted.mismatches, 1);
  EXPECT_GT(unshifted.error_ratio, 1.5);
}

}  // namespace
}  // namespace opcert
