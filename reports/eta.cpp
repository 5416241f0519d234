#include "reports/eta.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace opcert {

double Eta::elapsed_s(Clock::time_point now) const { return std::chrono::duration<double>(now - started_).count(); }

std::string Eta::text(std::size_t done, std::size_t total, Clock::time_point now) const {
  if (done < kMinDone || done >= total) return "";
  const double left = elapsed_s(now) / static_cast<double>(done) * static_cast<double>(total - done);
  return "eta " + short_duration(left);
}

std::string short_duration(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(seconds, 0.0)));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

}  // namespace opcert
