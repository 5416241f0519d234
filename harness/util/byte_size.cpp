#include "util/byte_size.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>

#include "model/input_error.h"

namespace opcert {

uint64_t parse_byte_size(std::string_view text, std::string_view flag) {
  const auto bad = [&] {
    return InputError(fmt::format("{} '{}' is not a size in bytes: write a whole number with an optional K, M or G "
                                  "(powers of 1024), e.g. 4096, 1K, 256M",
                                  flag, text));
  };
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15) throw bad();
  uint64_t value = std::stoull(std::string(text.substr(0, digits)));
  std::string unit(text.substr(digits));
  for (char& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (unit.ends_with("IB")) unit.resize(unit.size() - 2);
  else if (unit.size() > 1 && unit.ends_with("B")) unit.pop_back();
  int shift = 0;
  if (unit == "K") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (!unit.empty() && unit != "B") throw bad();
  if (value > (std::numeric_limits<uint64_t>::max() >> 34)) throw bad();
  return value << shift;
}

std::string format_byte_size(double bytes) {
  constexpr const char* kUnits[] = {"", "K", "M", "G", "T"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f}", bytes);
  return bytes == std::floor(bytes) ? fmt::format("{:.0f}{}", bytes, kUnits[unit]) : fmt::format("{:.3g}{}", bytes, kUnits[unit]);
}

}  // namespace opcert
