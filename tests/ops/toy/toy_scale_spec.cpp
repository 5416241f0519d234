// toy_scale's parameters (dtype, n, alpha) and case builder: x [n] uniform in [-4, 4], y [n].
#include <fmt/format.h>

#include <stdexcept>

#include "model/dtype.h"
#include "toy_scale.h"

namespace opcert::ops::toy_scale {

std::span<const ParamDef> parameters() {
  static const auto defs = with_common({{"dtype", nullptr, true}, {"n", nullptr, true}, {"alpha", 2.0}});
  return defs;
}

void build_case(const json& params, Case& c) {
  const ParamReader p("toy_scale", parameters(), params);
  const auto common = read_common(p);
  require_random_fill(common, "toy_scale");
  const auto dtype = p.dtype("dtype", {OPCERT_DTYPE_F32, OPCERT_DTYPE_BF16});
  const int64_t n = p.integer("n");
  if (n < 0) throw std::invalid_argument(fmt::format("parameter 'n' must be >= 0, not {}", n));
  auto x = tensor("x", dtype, {n});
  x.fill = uniform(-4, 4);
  c.inputs = {x};
  c.outputs = {tensor("y", dtype, {n})};
  if (p.given("alpha")) c.attrs["alpha"] = p.number("alpha");
  c.dtype = std::string(dtype_name(dtype));
  finish_case(c, common);
}

}  // namespace opcert::ops::toy_scale
