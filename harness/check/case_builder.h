// One case builder per op (harness/check/ops/<op>.cpp): turns a suite entry's parameters into
// a fully specified Case (operands, shapes, dtypes, attributes, fills), validating them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/case.h"

namespace opcert {

/// Fills c.inputs, c.outputs, c.attrs and c.fill_mode from `params` (the suite entry without
/// "op"/"id"/"tags"). c.op, c.id and c.suite are already set. Throws std::invalid_argument with a
/// message naming the parameter for a bad or unknown parameter.
using CaseBuilder = void (*)(const nlohmann::json& params, Case& c);

/// The builder of a catalogue op, or nullptr when the op has none (collectives).
CaseBuilder case_builder(const std::string& op);

}  // namespace opcert
