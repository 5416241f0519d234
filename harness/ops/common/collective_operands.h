// The five collectives share one parameter table and one case builder, differing only in which of
// reduce_op and root they take (docs/OPS.md, "Collectives"). A collective case describes the
// per-rank unit: x and y are [count] here; the rank runner sizes them for the world it runs on.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "opkit/param_table.h"

namespace opcert::ops::common {

/// dtype, count, then reduce_op when the collective reduces, root when it has one, then in_place.
std::vector<ParamDef> collective_params(bool reduce_op, bool root);

/// x [count] with the exact integer fill of harness/check/collectives/rank_inputs.h, y [count],
/// the given attributes, and the declared dtype.
void build_collective(std::string_view op, std::span<const ParamDef> defs, const opkit::json& params, Case& c);

}  // namespace opcert::ops::common
