// `opcert list --suite`: what each selected backend would do with each case of a suite, asked
// through query_op without running anything: declined with its reason, or accepted with the
// library call it makes (ABI 1.1), so that a reader sees which torch call the peer times.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "check/suite.h"
#include "loader/backend_handle.h"

namespace opcert {

/// One entry per case the filter selects: id, op, dtype, its operands (name, dtype, shape; the
/// inputs' fill), attributes and, per implementation of its op on each backend, {impl_key,
/// supported, reason | library_call}: enough for a script to rebuild the call outside opcert. A failing query is recorded as
/// unsupported with the failure as the reason.
nlohmann::json list_cases(const Suite& suite, const std::string& filter, const std::vector<BackendHandle*>& backends);

/// The same entries as aligned text: a line per case, an indented line per implementation.
std::string render_cases_text(const nlohmann::json& cases);

}  // namespace opcert
