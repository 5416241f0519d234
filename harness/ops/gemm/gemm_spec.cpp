// gemm: c[M,N] = a[M,K] · b[N,K]ᵀ (+ bias[N]) in fp32/fp16/bf16 (docs/OPS.md); fp32 may opt in
// to TF32 input rounding (allow_tf32).
#include <fmt/format.h>

#include <stdexcept>

#include "ops/gemm/gemm.h"
#include "model/dtype.h"

namespace opcert::ops::gemm {

std::span<const ParamDef> parameters() {
  static const auto defs = with_common({
      {"dtype", nullptr, true},
      {"m", nullptr, true},
      {"n", nullptr, true},
      {"k", nullptr, true},
      {"b_layout", "nk"},
      {"bias", false},
      {"allow_tf32", false},
  });
  return defs;
}

void build_case(const json& params, Case& c) {
  const ParamReader p(names::kOp, parameters(), params);
  const auto common = read_common(p);
  const auto dtype = p.dtype("dtype", {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  const int64_t m = p.size("m"), n = p.size("n"), k = p.size("k");
  const auto layout = p.choice("b_layout", {"nk", "kn"});
  const bool bias = p.boolean("bias");
  const bool allow_tf32 = p.boolean("allow_tf32");
  // TF32 is a rounding of fp32 inputs: with fp16/bf16 operands the permission means nothing.
  if (allow_tf32 && dtype != OPCERT_DTYPE_F32)
    throw std::invalid_argument(fmt::format("parameter 'allow_tf32' needs dtype fp32 (TF32 rounds fp32 inputs), not {}",
                                            dtype_name(dtype)));

  // Random: uniform [-1, 1]. Exact: integers in [-2, 2], A sparse enough that every sum is exact.
  // Rounding: integers whose exact sums fall between and on the output's rounding boundaries.
  const bool exact = common.fill == FillMode::kExact;
  const bool rounding = common.fill == FillMode::kRounding;
  if (rounding && allow_tf32)
    throw std::invalid_argument("fill 'rounding' cannot go with 'allow_tf32': TF32 may round the inputs, so the sums "
                                "are not exact; drop one of them");
  // fp32 sums of integers stay exact until they outgrow fp32 itself: there the single rounding is
  // a product's, with k = 1 and no bias.
  if (rounding && dtype == OPCERT_DTYPE_F32 && (k != 1 || bias))
    throw std::invalid_argument(fmt::format("fill 'rounding' with dtype fp32 needs k = 1 and no bias (only one product "
                                            "is then rounded), not k = {}{}",
                                            k, bias ? " with a bias" : ""));
  const auto range = static_cast<double>(rounding ? rounding_dot_range(k, dtype, dtype) : 0);
  const FillSpec dense = exact ? integers(-2, 2, 1.0) : rounding ? integers(-range, range, 1.0) : uniform(-1, 1);

  auto a = tensor(names::kA, dtype, {m, k});
  a.fill = exact ? integers(-2, 2, exact_dot_density(k, dtype)) : dense;
  auto b = tensor(names::kB, dtype, layout == "nk" ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n});
  b.fill = dense;
  c.inputs = {a, b};
  if (bias) {
    auto t = tensor(names::kBias, dtype, {n});
    t.fill = dense;
    c.inputs.push_back(t);
  }
  c.outputs = {tensor(names::kC, dtype, {m, n})};
  if (p.given("b_layout")) c.attrs[names::kBLayout] = layout;
  if (p.given("allow_tf32")) c.attrs[names::kAllowTf32] = int64_t{allow_tf32 ? 1 : 0};
  c.dtype = std::string(dtype_name(dtype));
  finish_case(c, common);
}

}  // namespace opcert::ops::gemm
