// attention: FlashAttention-style forward, BSHD or packed varlen with cu_seqlens (docs/OPS.md);
// fp8 e4m3fn inputs with optional [B, Hkv] descales and a bf16 output (FlashAttention-3's fp8 forward).
#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "opkit/case_size.h"
#include "ops/attention/attention.h"

namespace opcert::ops::attention {
namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

void require_positive(const char* name, int64_t v, int64_t min) {
  if (v < min) fail(fmt::format("parameter '{}' must be >= {}, not {}", name, min, v));
}

// cu_seqlens: prefix sums starting at 0, each an int32 (docs/OPS.md); `name` is the parameter.
std::vector<double> prefix_sums(const char* name, const std::vector<int64_t>& lengths, int64_t& total) {
  constexpr int64_t kMaxTokens = std::numeric_limits<int32_t>::max();
  std::vector<double> cu{0.0};
  total = 0;
  for (int64_t len : lengths) {
    if (len > kMaxTokens - total)  // every length is >= 0: total + len cannot wrap here
      fail(fmt::format("parameter '{}' sums to more than 2^31 - 1 tokens, more than cu_seqlens (int32) can hold", name));
    total += len;
    cu.push_back(static_cast<double>(total));
  }
  return cu;
}

// fp8 with descales: the codes and factors a user gets by quantizing data x = A·w, w uniform in
// [-1, 1], per (batch entry, KV head) by its amax A (to within the largest |w|): codes x / (A/448)
// spread over all of e4m3's range, descale = A/448. A varies over [0.5, 2] between the groups, so
// that a factor read for the wrong group or operand moves the result.
constexpr double kE4m3Max = 448.0;
constexpr double kAmaxLo = 0.5, kAmaxHi = 2.0;

// q, k and v: without descales, uniform [-1, 1] (rounded to the dtype; to e4m3 for fp8): scores of
// order sqrt(D)/3 before scaling, a softmax neither flat nor one-hot. With descales, the codes above.
FillSpec input_fill(bool descale) { return descale ? uniform(-kE4m3Max, kE4m3Max) : uniform(-1, 1); }

// The three descales [B, Hkv] of an fp8 case that asks for them. With zero_k, k's factor is 0 for
// every other (batch entry, KV head) group, as quantizing an all-zero K block by its amax gives:
// those groups' scores are all 0, which a kernel folding the factor into its exponent cannot
// represent and must handle apart (cuda.attention.warpspec_fp8). The other groups keep amax 1.
std::vector<TensorSpec> descales(int64_t batch, int64_t hkv, bool zero_k) {
  std::vector<TensorSpec> out;
  for (const char* name : {names::kQDescale, names::kKDescale, names::kVDescale}) {
    auto t = tensor(name, OPCERT_DTYPE_F32, {batch, hkv});
    t.fill = uniform(kAmaxLo / kE4m3Max, kAmaxHi / kE4m3Max);
    if (zero_k && std::string_view(name) == names::kKDescale) {
      std::vector<double> factors(static_cast<std::size_t>(listed_count(t)));
      for (std::size_t i = 0; i < factors.size(); ++i) factors[i] = i % 2 == 0 ? 0.0 : 1.0 / kE4m3Max;
      t.fill = values(std::move(factors));
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace

std::span<const ParamDef> parameters() {
  static const auto defs = with_common({
      {"dtype", nullptr, true},
      {"layout", "bshd"},
      {"b", 1},
      {"sq", nullptr},
      {"skv", nullptr},
      {"seqlens_q", nullptr},
      {"seqlens_k", nullptr},
      {"hq", nullptr, true},
      {"hkv", nullptr},
      {"d", nullptr, true},
      {"causal", false},
      {"window_left", -1},
      {"scale", nullptr},
      {"descale", false},
      {"zero_descale", false},
      {"lse", false},
  });
  return defs;
}

void build_case(const json& params, Case& c) {
  const ParamReader p(names::kOp, parameters(), params);
  const auto common = read_common(p);
  require_random_fill(common, names::kOp);
  const auto dtype = p.dtype("dtype", {OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F32, OPCERT_DTYPE_F8_E4M3FN});
  const bool fp8 = dtype == OPCERT_DTYPE_F8_E4M3FN;
  const auto out = fp8 ? OPCERT_DTYPE_BF16 : dtype;  // fp8 attention writes bf16 (FlashAttention-3)
  const bool descale = p.boolean("descale");
  if (descale && !fp8)
    fail(fmt::format("parameter 'descale' needs dtype fp8_e4m3fn (descales dequantize fp8 inputs), not {}", dtype_name(dtype)));
  const bool zero_descale = p.boolean("zero_descale");
  if (zero_descale && !descale) fail("parameter 'zero_descale' needs 'descale': true (it zeroes some of k's descales)");
  if (fp8) allow_specials(common, {"nan", "large", "-large"}, "fp8_e4m3fn cannot hold (it has no infinity)");
  const auto layout = p.choice("layout", {"bshd", "varlen"});
  const int64_t hq = p.integer("hq");
  const int64_t hkv = p.given("hkv") ? p.integer("hkv") : hq;
  const int64_t d = p.integer("d");
  require_positive("hq", hq, 1);
  require_positive("hkv", hkv, 1);
  require_positive("d", d, 1);
  if (hq % hkv != 0) fail(fmt::format("parameter 'hq' ({}) must be a multiple of 'hkv' ({})", hq, hkv));
  const bool causal = p.boolean("causal");
  const int64_t window_left = p.integer("window_left");
  if (window_left < -1) fail(fmt::format("parameter 'window_left' must be >= -1 (-1: unlimited), not {}", window_left));
  const bool lse = p.boolean("lse");

  const FillSpec fill = input_fill(descale);
  if (layout == "bshd") {
    for (const char* name : {"seqlens_q", "seqlens_k"})
      if (p.given(name)) fail(fmt::format("parameter '{}' is for layout 'varlen'; layout 'bshd' takes sq and skv", name));
    const int64_t b = p.integer("b");
    if (!p.given("sq")) fail("missing required parameter 'sq' for attention with layout 'bshd'");
    const int64_t sq = p.integer("sq");
    const int64_t skv = p.given("skv") ? p.integer("skv") : sq;
    require_positive("b", b, 0);
    require_positive("sq", sq, 0);
    require_positive("skv", skv, 0);
    auto q = tensor(names::kQ, dtype, {b, sq, hq, d});
    auto k = tensor(names::kK, dtype, {b, skv, hkv, d});
    auto v = tensor(names::kV, dtype, {b, skv, hkv, d});
    q.fill = k.fill = v.fill = fill;
    c.inputs = {q, k, v};
    if (descale)
      for (auto& t : descales(b, hkv, zero_descale)) c.inputs.push_back(t);
    c.outputs = {tensor(names::kO, out, {b, sq, hq, d})};
    if (lse) c.outputs.push_back(tensor(names::kLse, OPCERT_DTYPE_F32, {b, hq, sq}));
  } else {
    for (const char* name : {"sq", "skv"})
      if (p.given(name)) fail(fmt::format("parameter '{}' is for layout 'bshd'; layout 'varlen' takes seqlens_q and seqlens_k", name));
    if (!p.given("seqlens_q")) fail("missing required parameter 'seqlens_q' for attention with layout 'varlen'");
    const auto seqlens_q = p.integers("seqlens_q");
    const auto seqlens_k = p.given("seqlens_k") ? p.integers("seqlens_k") : seqlens_q;
    if (seqlens_q.empty()) fail("parameter 'seqlens_q' must list at least one sequence");
    if (seqlens_k.size() != seqlens_q.size())
      fail(fmt::format("parameters 'seqlens_q' and 'seqlens_k' must list as many sequences ({} and {})", seqlens_q.size(), seqlens_k.size()));
    if (p.given("b") && p.integer("b") != static_cast<int64_t>(seqlens_q.size()))
      fail(fmt::format("parameter 'b' ({}) must equal the number of sequences in 'seqlens_q' ({})", p.integer("b"), seqlens_q.size()));
    for (auto len : seqlens_q) require_positive("seqlens_q", len, 0);
    for (auto len : seqlens_k) require_positive("seqlens_k", len, 0);
    int64_t tq = 0, tk = 0;
    const int64_t b = static_cast<int64_t>(seqlens_q.size());
    auto q = tensor(names::kQ, dtype, {0, hq, d});
    auto k = tensor(names::kK, dtype, {0, hkv, d});
    auto v = tensor(names::kV, dtype, {0, hkv, d});
    auto cu_q = tensor(names::kCuSeqlensQ, OPCERT_DTYPE_I32, {b + 1});
    auto cu_k = tensor(names::kCuSeqlensK, OPCERT_DTYPE_I32, {b + 1});
    cu_q.fill = values(prefix_sums("seqlens_q", seqlens_q, tq));
    cu_k.fill = values(prefix_sums("seqlens_k", seqlens_k, tk));
    q.shape[0] = tq;
    k.shape[0] = v.shape[0] = tk;
    q.fill = k.fill = v.fill = fill;
    c.inputs = {q, k, v, cu_q, cu_k};
    if (descale)
      for (auto& t : descales(b, hkv, zero_descale)) c.inputs.push_back(t);
    c.outputs = {tensor(names::kO, out, {tq, hq, d})};
    if (lse) c.outputs.push_back(tensor(names::kLse, OPCERT_DTYPE_F32, {hq, tq}));
  }
  if (p.given("causal")) c.attrs[names::kCausal] = int64_t{causal ? 1 : 0};
  if (p.given("window_left")) c.attrs[names::kWindowLeft] = window_left;
  if (p.given("scale")) c.attrs[names::kScale] = p.number("scale");
  c.dtype = fp8 ? declared_dtype(dtype, out) : std::string(dtype_name(dtype));
  finish_case(c, common);
}

}  // namespace opcert::ops::attention
