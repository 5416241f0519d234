// The two norms (harness/ops/rms_norm, harness/ops/layer_norm) share their operands (x, weight,
// bias, residual -> y, residual_out) and so their case builder.
#pragma once

#include <span>
#include <string_view>

#include "opkit/param_table.h"

namespace opcert::ops::common {

using opkit::json;

/// The parameter table of a norm; `with_bias` for layer_norm.
std::vector<ParamDef> norm_params(bool with_bias);

void build_norm(std::string_view op, std::span<const ParamDef> defs, bool with_bias, const json& params, Case& c);

}  // namespace opcert::ops::common
