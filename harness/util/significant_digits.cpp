#include "util/significant_digits.h"

#include <fmt/format.h>

namespace opcert {

std::string three_digits(double v) {
  if (v >= 100) return fmt::format("{:.0f}", v);
  if (v >= 10) return fmt::format("{:.1f}", v);
  if (v >= 1 || v == 0) return fmt::format("{:.2f}", v);
  if (v >= 0.001) return fmt::format("{:.3f}", v);
  return fmt::format("{:.2e}", v);
}

}  // namespace opcert
