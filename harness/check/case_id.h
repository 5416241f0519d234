// The ids the suite loader generates for cases without an explicit one (docs/SUITES.md): the op's
// name and one token per parameter that differs from its default, in the order of the op's
// parameter table, so that an id says exactly what is special about its case.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string>

#include "opkit/param_table.h"

namespace opcert {

/// The id tokens of `params`: one per parameter that differs from its default (or is marked
/// always_in_id), in the table's order ("bf16", "e4m3", "m128", "bias", "nobias",
/// "window_left64", "nan_inf", "seqlens_q3_0_5"; fp8 dtypes by their short names), joined with
/// '.'. With `only`, just those parameter names, named even at their default. Unknown names are
/// ignored here (the op's builder rejects them).
std::string id_tokens(std::span<const ParamDef> table, const nlohmann::json& params,
                      const std::set<std::string>* only = nullptr);

}  // namespace opcert
