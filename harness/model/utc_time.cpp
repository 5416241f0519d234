#include "model/utc_time.h"

#include <ctime>

namespace opcert {

std::string format_utc(std::chrono::system_clock::time_point t, const char* format) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::strftime(text, sizeof text, format, &utc);
  return text;
}

std::string iso_utc(std::chrono::system_clock::time_point t) { return format_utc(t, "%Y-%m-%dT%H:%M:%SZ"); }

std::string now_utc() { return iso_utc(std::chrono::system_clock::now()); }

}  // namespace opcert
