// JSON parsing for config files that turns every problem into a one-line InputError:
// syntax errors as "<source>:<line>:<column>: invalid JSON: ...", and duplicate keys (which
// nlohmann would silently resolve to the last one) as an error naming the dotted field.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace opcert {

/// Throws InputError. Lines and columns start at 1; a column counts UTF-8 characters.
nlohmann::json parse_strict_json(std::string_view text, const std::string& source);

/// `text` with control characters escaped as JSON writes them ("\n", "\u0001"), so a message
/// quoting names from a file stays on one line.
std::string one_line(std::string_view text);

}  // namespace opcert
