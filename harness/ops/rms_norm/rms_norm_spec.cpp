// rms_norm: y = r / sqrt(mean(r^2) + eps) * weight, r = x (+ residual) (docs/OPS.md).
#include "ops/common/norm_operands.h"
#include "ops/rms_norm/rms_norm.h"

namespace opcert::ops::rms_norm {

std::span<const ParamDef> parameters() {
  static const auto defs = common::norm_params(false);
  return defs;
}

void build_case(const json& params, Case& c) { common::build_norm(names::kOp, parameters(), false, params, c); }

}  // namespace opcert::ops::rms_norm
