// Small JSON value conventions shared by the report writers: an empty or missing string is null.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace opcert {

inline nlohmann::json string_or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }
inline nlohmann::json string_or_null(const std::optional<std::string>& s) { return s ? nlohmann::json(*s) : nlohmann::json(nullptr); }

}  // namespace opcert
