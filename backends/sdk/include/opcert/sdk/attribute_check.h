// Reading an op's attributes against its contract: the kind each must have, the values it may
// take, its default when absent. A wrong kind or value is recorded in the CallCheck as one line
// naming the attribute, what it must be and what it is; the default is returned, so a parser reads
// on and the first problem stays the reason. Absent attributes are never a problem: each has a
// default (docs/OPS.md), and names an op does not define are ignored.
#pragma once

#include <opcert/sdk/call_check.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opcert::sdk {

/// "an int", "a float", "a string", "an int array": an opcert_attr_kind in messages.
inline std::string attr_kind_name(int32_t kind) {
  switch (kind) {
    case OPCERT_ATTR_INT: return "an int";
    case OPCERT_ATTR_FLOAT: return "a float";
    case OPCERT_ATTR_STRING: return "a string";
    case OPCERT_ATTR_INT_ARRAY: return "an int array";
    default: return "attribute kind " + std::to_string(kind);
  }
}

/// The int attribute `name`, or `fallback` when the call has none.
inline int64_t int_attr(CallCheck& check, const OpCall& call, std::string_view name, int64_t fallback) {
  const opcert_attr* attr = call.find_attr(name);
  if (attr == nullptr) return fallback;
  if (attr->kind != OPCERT_ATTR_INT) {
    check.require(false, "attribute '" + std::string(name) + "' must be an int (got " + attr_kind_name(attr->kind) + ")");
    return fallback;
  }
  return attr->i;
}

/// A boolean attribute: the int 0 or 1 (docs/ABI.md), `fallback` when absent.
inline bool flag_attr(CallCheck& check, const OpCall& call, std::string_view name, bool fallback) {
  const int64_t value = int_attr(check, call, name, fallback ? 1 : 0);
  if (value != 0 && value != 1) {
    check.require(false, "attribute '" + std::string(name) + "' must be 0 or 1 (got " + std::to_string(value) + ")");
    return fallback;
  }
  return value == 1;
}

/// The float attribute `name` (an int is taken as its value, as OpCall::get_float does), or
/// `fallback` when the call has none.
inline double float_attr(CallCheck& check, const OpCall& call, std::string_view name, double fallback) {
  const opcert_attr* attr = call.find_attr(name);
  if (attr == nullptr) return fallback;
  if (attr->kind == OPCERT_ATTR_INT) return static_cast<double>(attr->i);
  if (attr->kind != OPCERT_ATTR_FLOAT) {
    check.require(false, "attribute '" + std::string(name) + "' must be a float (got " + attr_kind_name(attr->kind) + ")");
    return fallback;
  }
  return attr->f;
}

namespace detail {

/// The index in `allowed` of string attribute `name`'s value: -1 when absent, -2 (recorded in
/// `check`) when it is not a string or not one of them.
inline int choose(CallCheck& check, const OpCall& call, std::string_view name, const std::vector<std::string_view>& allowed) {
  const opcert_attr* attr = call.find_attr(name);
  if (attr == nullptr) return -1;
  if (attr->kind != OPCERT_ATTR_STRING || attr->s == nullptr) {
    check.require(false, "attribute '" + std::string(name) + "' must be a string (got " + attr_kind_name(attr->kind) + ")");
    return -2;
  }
  const std::string_view value = attr->s;
  std::string list;
  int index = 0;
  for (std::string_view a : allowed) {
    if (value == a) return index;
    list.append(list.empty() ? "\"" : ", \"").append(a).append("\"");
    ++index;
  }
  check.require(false, "attribute '" + std::string(name) + "' must be one of " + list + " (got \"" + std::string(value) + "\")");
  return -2;
}

}  // namespace detail

/// The value of string attribute `name` (default `fallback`) if it is one of `allowed`;
/// otherwise records why and returns the default.
inline std::string string_choice(CallCheck& check, const OpCall& call, std::string_view name, std::string_view fallback,
                                 std::initializer_list<std::string_view> allowed) {
  const int index = detail::choose(check, call, name, allowed);
  return std::string(index < 0 ? fallback : *(allowed.begin() + index));
}

/// A string attribute read into an enum: `choices` pairs each spelling the contract allows with
/// its value; `fallback` when absent or not one of them (then recorded in `check`).
template <class E>
E enum_attr(CallCheck& check, const OpCall& call, std::string_view name, E fallback,
            std::initializer_list<std::pair<std::string_view, E>> choices) {
  std::vector<std::string_view> spellings;
  for (const auto& choice : choices) spellings.push_back(choice.first);
  const int index = detail::choose(check, call, name, spellings);
  if (index >= 0) return (choices.begin() + index)->second;
  return fallback;
}

}  // namespace opcert::sdk
