// layer_norm: y = (r - mean) / sqrt(var + eps) * weight + bias, r = x (+ residual) (docs/OPS.md).
#include "check/ops/norm_common.h"
#include "check/ops/op_registry.h"

namespace opcert::check_ops {

std::span<const ParamDef> layer_norm_params() {
  static const auto defs = norm_params(true);
  return defs;
}

void build_layer_norm(const json& params, Case& c) { build_norm("layer_norm", layer_norm_params(), true, params, c); }

}  // namespace opcert::check_ops
