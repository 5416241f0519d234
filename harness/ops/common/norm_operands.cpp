#include "ops/common/norm_operands.h"

#include <opcert/sdk/ops/norm.h>

#include <fmt/format.h>

#include <stdexcept>

namespace opcert::ops::common {

namespace norm = sdk::norm_names;  // the operands' names, the SDK's

using namespace opkit;

std::vector<ParamDef> norm_params(bool with_bias) {
  if (with_bias)
    return with_common({{"dtype", nullptr, true}, {"t", nullptr, true}, {"h", nullptr, true}, {"weight", true},
                        {"bias", false}, {"residual", false}, {"eps", nullptr}});
  return with_common({{"dtype", nullptr, true}, {"t", nullptr, true}, {"h", nullptr, true}, {"weight", true},
                      {"residual", false}, {"eps", nullptr}});
}

void build_norm(std::string_view op, std::span<const ParamDef> defs, bool with_bias, const json& params, Case& c) {
  const ParamReader p(op, defs, params);
  const auto common = read_common(p);
  require_random_fill(common, op);
  const auto dtype = p.dtype("dtype", {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  const int64_t t = p.size("t"), h = p.integer("h");
  if (h < 1) throw std::invalid_argument(fmt::format("parameter 'h' must be >= 1, not {}", h));

  // x of a few units; weights near 1 (trained norms are), biases small.
  auto x = tensor(norm::kX, dtype, {t, h});
  x.fill = uniform(-2, 2);
  c.inputs = {x};
  if (p.boolean("weight")) {
    auto w = tensor(norm::kWeight, dtype, {h});
    w.fill = uniform(0.5, 1.5);
    c.inputs.push_back(w);
  }
  if (with_bias && p.boolean("bias")) {
    auto b = tensor(norm::kBias, dtype, {h});
    b.fill = uniform(-0.5, 0.5);
    c.inputs.push_back(b);
  }
  const bool residual = p.boolean("residual");
  if (residual) {
    auto r = tensor(norm::kResidual, dtype, {t, h});
    r.fill = uniform(-2, 2);
    c.inputs.push_back(r);
  }
  c.outputs = {tensor(norm::kY, dtype, {t, h})};
  if (residual) c.outputs.push_back(tensor(norm::kResidualOut, dtype, {t, h}));
  if (p.given("eps")) {
    const double eps = p.number("eps");
    if (!(eps >= 0)) throw std::invalid_argument(fmt::format("parameter 'eps' must be >= 0, not {}", eps));
    c.attrs[norm::kEps] = eps;
  }
  c.dtype = std::string(dtype_name(dtype));
  finish_case(c, common);
}

}  // namespace opcert::ops::common
