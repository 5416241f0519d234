// gemm_int8: int8 x int8 with an exact int32 output, or dequantized to bf16/fp16 with
// per-token x per-channel scales (docs/OPS.md).
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "opkit/case_size.h"
#include "ops/gemm_int8/gemm_int8.h"

namespace opcert::ops::gemm_int8 {
namespace {

// 127 * 127 * 2^17 < 2^31: no int32 sum can overflow (the contract's promise to backends).
constexpr int64_t kMaxK = int64_t{1} << 17;
// Pattern "same_sign": 127 · 127 · K passes 2^24 (fp32's exact integers) from K = 1041, and
// (-128)² · K reaches 2^31 at K = 2^17, so K stays below it.
constexpr int64_t kSameSignMinK = 1041;
// Pattern "crossing": from K = 4096 its running sums pass 2^25, where fp32's spacing is 4 and every
// step of an fp32 accumulator rounds the same way (docs/SUITES.md).
constexpr int64_t kCrossingMinK = 4096;

// Operands built so that the exact int32 sums leave fp32's exact integers (docs/SUITES.md,
// "gemm_int8 patterns"). same_sign: rows of 127 or -128 alike, |sum| = K · 16129 to K · 16384.
// crossing: a row of ±127 against a row of 127 then -125, so the running sum climbs past 2^25 and
// comes back to a few times 10^4; column n lowers n % 8 of the 127s to 126.
std::vector<double> pattern_values(const std::string& pattern, bool is_a, int64_t rows, int64_t k) {
  std::vector<double> v(static_cast<std::size_t>(rows * k));
  const int64_t up = k * 15875 / (16129 + 15875);  // 127 · 127 · up ≈ 127 · 125 · (k - up)
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < k; ++j) {
      double x = 0.0;
      if (pattern == "same_sign") x = r % 2 == 0 ? 127.0 : -128.0;
      else if (is_a) x = r % 2 == 0 ? 127.0 : -127.0;
      else x = j >= up ? -125.0 : j < r % 8 ? 126.0 : 127.0;
      v[static_cast<std::size_t>(r * k + j)] = x;
    }
  return v;
}

// Power-of-two scales (exact products) small enough that K · 2^14 times their product fits fp16.
std::vector<double> pattern_scales(int64_t n, int64_t k) {
  const double base = std::ldexp(1.0, -static_cast<int>(std::ceil((std::log2(static_cast<double>(k)) + 2.0) / 2.0)));
  std::vector<double> v = power_of_two_scales(n);
  for (double& x : v) x *= base;
  return v;
}

}  // namespace

std::span<const ParamDef> parameters() {
  static const auto defs = with_common({
      {"out_dtype", "int32"},
      {"m", nullptr, true},
      {"n", nullptr, true},
      {"k", nullptr, true},
      {"bias", false},
      {"pattern", nullptr},
  });
  return defs;
}

void build_case(const json& params, Case& c) {
  const ParamReader p(names::kOp, parameters(), params);
  const auto common = read_common(p);
  const auto out = p.dtype("out_dtype", {OPCERT_DTYPE_I32, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16});
  const int64_t m = p.size("m"), n = p.size("n"), k = p.size("k");
  if (k > kMaxK) throw std::invalid_argument(fmt::format("parameter 'k' must be at most {} so no int32 sum overflows, not {}", kMaxK, k));
  const bool bias = p.boolean("bias");
  const bool dequantized = out != OPCERT_DTYPE_I32;
  if (bias && !dequantized) throw std::invalid_argument("parameter 'bias' needs a dequantized out_dtype (bf16 or fp16), not int32");
  allow_specials(common, {"large", "-large"}, "int8 cannot hold");
  const std::string pattern = p.given("pattern") ? p.choice("pattern", {"same_sign", "crossing"}) : "";
  if (!pattern.empty()) {
    if (common.fill != FillMode::kRandom || !common.specials.empty())
      throw std::invalid_argument("parameter 'pattern' sets every operand; drop 'fill' and 'specials'");
    const int64_t least = pattern == "same_sign" ? kSameSignMinK : kCrossingMinK;
    if (k < least || (pattern == "same_sign" && k >= kMaxK))
      throw std::invalid_argument(fmt::format("pattern '{}' needs k in [{}, {}) so that its sums pass fp32's exact "
                                              "integers and stay in int32, not {}",
                                              pattern, least, kMaxK, k));
  }

  // Random: the full symmetric int8 range. Exact: small integers, sparse A, power-of-two scales.
  // Rounding: integers whose dequantized sums fall between and on the output's rounding boundaries.
  const bool exact = common.fill == FillMode::kExact;
  const bool rounding = common.fill == FillMode::kRounding;
  if (rounding && !dequantized) throw std::invalid_argument("fill 'rounding' needs a dequantized out_dtype (bf16 or fp16): an int32 output is never rounded");
  const auto range = static_cast<double>(rounding ? rounding_dot_range(k, OPCERT_DTYPE_I8, out) : 127);
  auto a = tensor(names::kA, OPCERT_DTYPE_I8, {m, k});
  auto b = tensor(names::kB, OPCERT_DTYPE_I8, {n, k});
  a.fill = exact ? integers(-2, 2, exact_dot_density(k, out)) : integers(-range, range, 1.0);
  b.fill = exact ? integers(-2, 2, 1.0) : integers(-range, range, 1.0);
  if (!pattern.empty()) {
    a.fill = values(pattern_values(pattern, true, m, k));
    b.fill = values(pattern_values(pattern, false, n, k));
  }
  c.inputs = {a, b};
  if (dequantized) {
    auto a_scale = tensor(names::kAScale, OPCERT_DTYPE_F32, {m});
    auto b_scale = tensor(names::kBScale, OPCERT_DTYPE_F32, {n});
    // Random scales of a typical int8 quantization (amax / 127 for activations of a few units).
    a_scale.fill = exact || rounding ? values(power_of_two_scales(listed_count(a_scale))) : uniform(1e-3, 1e-2);
    b_scale.fill = exact || rounding ? values(power_of_two_scales(listed_count(b_scale))) : uniform(1e-3, 1e-2);
    if (!pattern.empty()) {
      a_scale.fill = values(pattern_scales(listed_count(a_scale), k));
      b_scale.fill = values(pattern_scales(listed_count(b_scale), k));
    }
    c.inputs.push_back(a_scale);
    c.inputs.push_back(b_scale);
    if (bias) {
      auto t = tensor(names::kBias, out, {n});
      t.fill = exact ? integers(-2, 2, 1.0) : rounding ? integers(-range, range, 1.0) : uniform(-1, 1);
      c.inputs.push_back(t);
    }
  }
  c.outputs = {tensor(names::kC, out, {m, n})};
  c.dtype = declared_dtype(OPCERT_DTYPE_I8, out);
  finish_case(c, common);
}

}  // namespace opcert::ops::gemm_int8
