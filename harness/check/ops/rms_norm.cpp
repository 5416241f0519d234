// rms_norm: y = r / sqrt(mean(r^2) + eps) * weight, r = x (+ residual) (docs/OPS.md).
#include "check/ops/norm_common.h"
#include "check/ops/op_registry.h"

namespace opcert::check_ops {

std::span<const ParamDef> rms_norm_params() {
  static const auto defs = norm_params(false);
  return defs;
}

void build_rms_norm(const json& params, Case& c) { build_norm("rms_norm", rms_norm_params(), false, params, c); }

}  // namespace opcert::check_ops
