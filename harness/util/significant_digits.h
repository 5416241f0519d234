// A figure with a fixed number of significant digits, for tables and text: ratios, throughputs,
// and the number part of a duration.
#pragma once

#include <string>

namespace opcert {

/// Three significant digits, without an exponent down to 0.001 ("812", "12.4", "3.21", "0.005").
std::string three_digits(double value);

}  // namespace opcert
