// layer_norm: y = (r - mean) / sqrt(var + eps) * weight + bias, r = x (+ residual) (docs/OPS.md).
#include "ops/common/norm_operands.h"
#include "ops/layer_norm/layer_norm.h"

namespace opcert::ops::layer_norm {

std::span<const ParamDef> parameters() {
  static const auto defs = common::norm_params(true);
  return defs;
}

void build_case(const json& params, Case& c) { common::build_norm(names::kOp, parameters(), true, params, c); }

}  // namespace opcert::ops::layer_norm
