// Typed reads of the JSON files opcert reads back (report.json, results.jsonl): a field of the
// wrong type is a JsonFieldError naming its path ("results[3].status: expected a string, got a
// number"), where nlohmann's type_error names neither the field nor where it is.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace opcert {

class JsonFieldError : public std::runtime_error {
 public:
  JsonFieldError(std::string path, std::string problem)
      : std::runtime_error(path + ": " + problem), path_(std::move(path)), problem_(std::move(problem)) {}
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};

/// What `value` is, in words: "a string", "a number", "true or false", "an object", "an array", "null".
std::string json_kind(const nlohmann::json& value);

/// "expected WANTED, got KIND" for `value`.
std::string json_mismatch(const char* wanted, const nlohmann::json& value);

/// `value` as a T (std::string, bool, an integer type in range, double, or json itself); `path`
/// names it in the JsonFieldError otherwise.
template <class T>
T json_as(const nlohmann::json& value, const std::string& path) {
  if constexpr (std::is_same_v<T, nlohmann::json>) {
    return value;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) throw JsonFieldError(path, json_mismatch("a string", value));
    return value.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) throw JsonFieldError(path, json_mismatch("true or false", value));
    return value.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (value.is_number_unsigned() && value.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max()))
      return static_cast<T>(value.get<uint64_t>());
    if (value.is_number_integer() && !value.is_number_unsigned()) {
      const int64_t i = value.get<int64_t>();
      if (i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
          (i < 0 || static_cast<uint64_t>(i) <= static_cast<uint64_t>(std::numeric_limits<T>::max())))
        return static_cast<T>(i);
    }
    throw JsonFieldError(path, json_mismatch("a whole number in range", value));
  } else {
    static_assert(std::is_floating_point_v<T>);
    if (!value.is_number()) throw JsonFieldError(path, json_mismatch("a number", value));
    return value.get<T>();
  }
}

/// The field `name` of `object` as a T; a missing one is a JsonFieldError too.
template <class T>
T json_field(const nlohmann::json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end()) throw JsonFieldError(name, "missing");
  return json_as<T>(*it, name);
}

/// The field `name` of `object` as a T, or `fallback` when it is absent or null.
template <class T>
T json_field_or(const nlohmann::json& object, const char* name, T fallback) {
  const auto it = object.find(name);
  if (it == object.end() || it->is_null()) return fallback;
  return json_as<T>(*it, name);
}

/// `read()`, with `path` put before the path of a JsonFieldError it throws ("results[3]" +
/// "status"); nlohmann's own type_error becomes one at `path`.
template <class Read>
auto json_within(const std::string& path, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const JsonFieldError& e) {
    throw JsonFieldError(path + (e.path().starts_with("[") ? "" : ".") + e.path(), e.problem());
  } catch (const nlohmann::json::type_error& e) {
    const std::string what = e.what();  // "[json.exception.type_error.302] type must be ..."
    throw JsonFieldError(path, what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2));
  }
}

}  // namespace opcert
