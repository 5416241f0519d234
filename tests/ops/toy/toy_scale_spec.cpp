// toy_scale's parameters (dtype, n, alpha) and case builder: x [n] uniform in [-4, 4], y [n]. The
// operands' names come from the op's contract (toy_scale_operands.h), not spelled again here.
#include <fmt/format.h>

#include <stdexcept>

#include "model/dtype.h"
#include "toy_scale.h"
#include "toy_scale_operands.h"

namespace opcert::ops::toy_scale {

namespace contract = sdk::toy_scale_names;

std::span<const ParamDef> parameters() {
  static const auto defs = with_common({{"dtype", nullptr, true}, {"n", nullptr, true}, {contract::kAlpha, contract::kDefaultAlpha}});
  return defs;
}

void build_case(const json& params, Case& c) {
  const ParamReader p(contract::kOp, parameters(), params);
  const auto common = read_common(p);
  require_random_fill(common, contract::kOp);
  const auto dtype = p.dtype("dtype", {OPCERT_DTYPE_F32, OPCERT_DTYPE_BF16});
  const int64_t n = p.integer("n");
  if (n < 0) throw std::invalid_argument(fmt::format("parameter 'n' must be >= 0, not {}", n));
  auto x = tensor(contract::kX, dtype, {n});
  x.fill = uniform(-4, 4);
  c.inputs = {x};
  c.outputs = {tensor(contract::kY, dtype, {n})};
  if (p.given(contract::kAlpha)) c.attrs[contract::kAlpha] = p.number(contract::kAlpha);
  c.dtype = std::string(dtype_name(dtype));
  finish_case(c, common);
}

}  // namespace opcert::ops::toy_scale
