#include "model/json_field.h"

namespace opcert {

std::string json_kind(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "true or false";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: return "a number";
    default: return "something else";
  }
}

std::string json_mismatch(const char* wanted, const nlohmann::json& value) {
  return std::string("expected ") + wanted + ", got " + json_kind(value) +
         (value.is_number() ? " (" + value.dump() + ")" : "");
}

}  // namespace opcert
