// Durations as reports print them and as the verbs' --timeout flags give them (seconds, a double).
#pragma once

#include <chrono>
#include <string>

namespace opcert {

/// "812 ns", "12.4 us", "3.21 ms", "1.05 s" (three significant digits).
std::string format_duration(double seconds);

/// `seconds` in whole milliseconds, rounded up: a timeout is never shorter than asked.
std::chrono::milliseconds milliseconds_from_seconds(double seconds);

}  // namespace opcert
