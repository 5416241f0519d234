// Timestamps as every document of opcert writes them: ISO 8601, UTC, whole seconds.
#pragma once

#include <chrono>
#include <string>

namespace opcert {

/// `t` formatted by strftime's `format` in UTC.
std::string format_utc(std::chrono::system_clock::time_point t, const char* format);

/// "2026-11-23T10:15:00Z".
std::string iso_utc(std::chrono::system_clock::time_point t);

/// iso_utc of now.
std::string now_utc();

}  // namespace opcert
