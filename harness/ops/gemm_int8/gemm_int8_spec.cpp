// gemm_int8: int8 x int8 with an exact int32 output, or dequantized to bf16/fp16 with
// per-token x per-channel scales (docs/OPS.md).
#include <fmt/format.h>

#include <stdexcept>

#include "opkit/case_size.h"
#include "ops/gemm_int8/gemm_int8.h"

namespace opcert::ops::gemm_int8 {
namespace {

// 127 * 127 * 2^17 < 2^31: no int32 sum can overflow (the contract's promise to backends).
constexpr int64_t kMaxK = int64_t{1} << 17;

}  // namespace

std::span<const ParamDef> parameters() {
  static const auto defs = with_common({
      {"out_dtype", "int32"},
      {"m", nullptr, true},
      {"n", nullptr, true},
      {"k", nullptr, true},
      {"bias", false},
  });
  return defs;
}

void build_case(const json& params, Case& c) {
  const ParamReader p("gemm_int8", parameters(), params);
  const auto common = read_common(p);
  const auto out = p.dtype("out_dtype", {OPCERT_DTYPE_I32, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16});
  const int64_t m = p.size("m"), n = p.size("n"), k = p.size("k");
  if (k > kMaxK) throw std::invalid_argument(fmt::format("parameter 'k' must be at most {} so no int32 sum overflows, not {}", kMaxK, k));
  const bool bias = p.boolean("bias");
  const bool dequantized = out != OPCERT_DTYPE_I32;
  if (bias && !dequantized) throw std::invalid_argument("parameter 'bias' needs a dequantized out_dtype (bf16 or fp16), not int32");
  allow_specials(common, {"large", "-large"}, "int8 cannot hold");

  // Random: the full symmetric int8 range. Exact: small integers, sparse A, power-of-two scales.
  // Rounding: integers whose dequantized sums fall between and on the output's rounding boundaries.
  const bool exact = common.fill == FillMode::kExact;
  const bool rounding = common.fill == FillMode::kRounding;
  if (rounding && !dequantized) throw std::invalid_argument("fill 'rounding' needs a dequantized out_dtype (bf16 or fp16): an int32 output is never rounded");
  const auto range = static_cast<double>(rounding ? rounding_dot_range(k, OPCERT_DTYPE_I8, out) : 127);
  auto a = tensor("a", OPCERT_DTYPE_I8, {m, k});
  auto b = tensor("b", OPCERT_DTYPE_I8, {n, k});
  a.fill = exact ? integers(-2, 2, exact_dot_density(k, out)) : integers(-range, range, 1.0);
  b.fill = exact ? integers(-2, 2, 1.0) : integers(-range, range, 1.0);
  c.inputs = {a, b};
  if (dequantized) {
    auto a_scale = tensor("a_scale", OPCERT_DTYPE_F32, {m});
    auto b_scale = tensor("b_scale", OPCERT_DTYPE_F32, {n});
    // Random scales of a typical int8 quantization (amax / 127 for activations of a few units).
    a_scale.fill = exact || rounding ? values(power_of_two_scales(listed_count(a_scale))) : uniform(1e-3, 1e-2);
    b_scale.fill = exact || rounding ? values(power_of_two_scales(listed_count(b_scale))) : uniform(1e-3, 1e-2);
    c.inputs.push_back(a_scale);
    c.inputs.push_back(b_scale);
    if (bias) {
      auto t = tensor("bias", out, {n});
      t.fill = exact ? integers(-2, 2, 1.0) : rounding ? integers(-range, range, 1.0) : uniform(-1, 1);
      c.inputs.push_back(t);
    }
  }
  c.outputs = {tensor("c", out, {m, n})};
  c.dtype = declared_dtype(OPCERT_DTYPE_I8, out);
  finish_case(c, common);
}

}  // namespace opcert::ops::gemm_int8
