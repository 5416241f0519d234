// Op attributes as the harness holds them: a name mapped to an int, a float, a string or a list
// of ints (the four kinds of opcert_attr).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace opcert {

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;
using Attrs = std::map<std::string, AttrValue>;

/// The attribute's value, or `fallback` when absent; an int is accepted where a float is asked.
int64_t attr_int(const Attrs& attrs, const std::string& name, int64_t fallback);
double attr_float(const Attrs& attrs, const std::string& name, double fallback);
std::string attr_string(const Attrs& attrs, const std::string& name, const std::string& fallback);

/// "1", "0.5", "\"nk\"", "[1, 2]": how an attribute appears in repro lines and reports.
std::string attr_text(const AttrValue& value);

}  // namespace opcert
