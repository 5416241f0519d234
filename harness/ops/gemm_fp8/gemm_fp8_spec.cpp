// gemm_fp8: scaled fp8 GEMM with per-tensor, per-token x per-channel or 1x128 / 128x128 block
// scales (docs/OPS.md).
#include <fmt/format.h>

#include <stdexcept>

#include "opkit/case_size.h"
#include "ops/gemm_fp8/gemm_fp8.h"

namespace opcert::ops::gemm_fp8 {
namespace {

constexpr int64_t kBlock = 128;

int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }  // a + b - 1 could overflow

// Realistic quantized operands: a per-tensor quantized normal tensor uses most of the fp8
// range; uniform over about half of it rounds to every binade the dtype has there.
double random_range(opcert_dtype dtype) { return dtype == OPCERT_DTYPE_F8_E4M3FN ? 240.0 : 1000.0; }

}  // namespace

std::span<const ParamDef> parameters() {
  static const auto defs = with_common({
      {"a_dtype", "fp8_e4m3fn", false, true},
      {"b_dtype", "fp8_e4m3fn", false, true},
      {"out_dtype", "bf16"},
      {"scaling", "tensor"},
      {"m", nullptr, true},
      {"n", nullptr, true},
      {"k", nullptr, true},
      {"bias", false},
  });
  return defs;
}

void build_case(const json& params, Case& c) {
  const ParamReader p(names::kOp, parameters(), params);
  const auto common = read_common(p);
  const auto a_dtype = p.dtype("a_dtype", {OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2});
  const auto b_dtype = p.dtype("b_dtype", {OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2});
  const auto out = p.dtype("out_dtype", {OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16, OPCERT_DTYPE_F32});
  const auto scaling = p.choice("scaling", {"tensor", "channel", "block"});
  const int64_t m = p.size("m"), n = p.size("n"), k = p.size("k");
  const bool bias = p.boolean("bias");
  if (a_dtype == OPCERT_DTYPE_F8_E4M3FN)
    allow_specials(common, {"nan", "large", "-large"}, "fp8_e4m3fn cannot hold (it has no infinity)");

  std::vector<int64_t> a_scale_shape{1}, b_scale_shape{1};
  if (scaling == "channel") {
    a_scale_shape = {m};
    b_scale_shape = {n};
  } else if (scaling == "block") {
    a_scale_shape = {m, ceil_div(k, kBlock)};
    b_scale_shape = {ceil_div(n, kBlock), ceil_div(k, kBlock)};
  }

  const bool exact = common.fill == FillMode::kExact;
  const bool rounding = common.fill == FillMode::kRounding;
  // Rounding: partial sums below 2^13, exact even in Hopper's fp8 accumulators (about 14 bits).
  const auto narrower = significand_bits(a_dtype) <= significand_bits(b_dtype) ? a_dtype : b_dtype;
  const auto range = static_cast<double>(rounding ? rounding_dot_range(k, narrower, out, 13) : 0);
  auto a = tensor(names::kA, a_dtype, {m, k});
  auto b = tensor(names::kB, b_dtype, {n, k});
  auto a_scale = tensor(names::kAScale, OPCERT_DTYPE_F32, a_scale_shape);
  auto b_scale = tensor(names::kBScale, OPCERT_DTYPE_F32, b_scale_shape);
  if (exact || rounding) {
    // Small integers are exact in both fp8 formats; power-of-two scales keep every product exact.
    a.fill = rounding ? integers(-range, range, 1.0) : integers(-2, 2, exact_dot_density(k, out));
    b.fill = rounding ? integers(-range, range, 1.0) : integers(-2, 2, 1.0);
    a_scale.fill = values(power_of_two_scales(listed_count(a_scale)));
    b_scale.fill = values(power_of_two_scales(listed_count(b_scale)));
  } else {
    a.fill = uniform(-random_range(a_dtype), random_range(a_dtype));
    b.fill = uniform(-random_range(b_dtype), random_range(b_dtype));
    a_scale.fill = uniform(1e-3, 1e-2);
    b_scale.fill = uniform(1e-3, 1e-2);
  }
  c.inputs = {a, b, a_scale, b_scale};
  if (bias) {
    auto t = tensor(names::kBias, out, {n});
    t.fill = exact ? integers(-2, 2, 1.0) : rounding ? integers(-range, range, 1.0) : uniform(-1, 1);
    c.inputs.push_back(t);
  }
  c.outputs = {tensor(names::kC, out, {m, n})};
  if (p.given("scaling")) c.attrs[names::kScaling] = scaling;
  c.dtype = declared_dtype(a_dtype, b_dtype, out);
  finish_case(c, common);
}

}  // namespace opcert::ops::gemm_fp8
