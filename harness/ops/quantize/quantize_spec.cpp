// quantize: dynamic per-token or per-tensor quantization to int8 / fp8 (docs/OPS.md).
#include <fmt/format.h>

#include <stdexcept>

#include "model/scalar_codec.h"
#include "ops/quantize/quantize.h"

namespace opcert::ops::quantize {

std::span<const ParamDef> parameters() {
  static const auto defs = with_common({
      {"in_dtype", nullptr, true},
      {"out_dtype", nullptr, true},
      {"granularity", "token"},
      {"m", nullptr, true},
      {"k", nullptr, true},
  });
  return defs;
}

void build_case(const json& params, Case& c) {
  const ParamReader p(names::kOp, parameters(), params);
  const auto common = read_common(p);
  const auto in = p.dtype("in_dtype", {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  const auto out = p.dtype("out_dtype", {OPCERT_DTYPE_I8, OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2});
  const auto granularity = p.choice("granularity", {"token", "tensor"});
  const int64_t m = p.size("m"), k = p.size("k");
  allow_specials(common, {"large", "-large"}, "is outside the quantize contract (NaN and Inf inputs are undefined)");

  // Activations of a few units; exact mode gives small integers.
  auto x = tensor(names::kX, in, {m, k});
  x.fill = common.fill == FillMode::kExact ? integers(-8, 8, 1.0) : uniform(-8, 8);
  if (common.fill == FillMode::kRounding) {
    // Each row's amax is qmax * 2^-4 (its last element, + and - in turn), so the scale is 2^-4
    // exactly and x / scale is exact: half-integer quotients fall on ties of int8 and, below 64,
    // between and on the fp8 codes of every binade.
    const double qmax = max_finite(out), scale = 0x1.0p-4;
    const double reach = out == OPCERT_DTYPE_I8 ? qmax : 64.0;
    x.fill = grid(-reach * scale, reach * scale, 0.5 * scale);
    x.fill.special_every = k;
    x.fill.specials = {qmax * scale, -qmax * scale};
  }
  c.inputs = {x};
  c.outputs = {tensor(names::kQ, out, {m, k}), tensor(names::kScale, OPCERT_DTYPE_F32, {granularity == "token" ? m : 1})};
  if (p.given("granularity")) c.attrs[names::kGranularity] = granularity;
  c.dtype = declared_dtype(in, out);
  finish_case(c, common);
}

}  // namespace opcert::ops::quantize
