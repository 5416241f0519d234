#include "util/duration.h"

#include <cmath>
#include <cstdint>

#include "util/significant_digits.h"

namespace opcert {

std::string format_duration(double seconds) {
  if (seconds < 1e-6) return three_digits(seconds * 1e9) + " ns";
  if (seconds < 1e-3) return three_digits(seconds * 1e6) + " us";
  if (seconds < 1) return three_digits(seconds * 1e3) + " ms";
  return three_digits(seconds) + " s";
}

std::chrono::milliseconds milliseconds_from_seconds(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000.0)));
}

}  // namespace opcert
