#include "reports/xml_escape.h"

#include <cstdint>
#include <fmt/format.h>

namespace opcert {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence at s[i] (1-4), or 0 when it is not one.
// Overlong forms, surrogates and code points past U+10FFFF are rejected (RFC 3629).
size_t utf8_sequence_length(std::string_view s, size_t i, uint32_t& code_point) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) {
    code_point = b0;
    return 1;
  }
  size_t length;
  uint32_t min;
  if ((b0 & 0xE0) == 0xC0) {
    length = 2, min = 0x80, code_point = b0 & 0x1Fu;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3, min = 0x800, code_point = b0 & 0x0Fu;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4, min = 0x10000, code_point = b0 & 0x07u;
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i + k) & 0x3Fu);
  }
  if (code_point < min || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) return 0;
  return length;
}

std::string escape(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t length = utf8_sequence_length(text, i, cp);
    if (length == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += attribute ? "&quot;" : "\""; break;
      case '\'': out += attribute ? "&apos;" : "'"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\r': out += "&#13;"; break;
      default:
        if (cp < 0x20)
          out += fmt::format("\\x{:02X}", cp);
        else if (cp == 0xFFFE || cp == 0xFFFF)
          out += kReplacement;
        else
          out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

}  // namespace

std::string xml_escape_text(std::string_view text) { return escape(text, false); }

std::string xml_escape_attribute(std::string_view text) { return escape(text, true); }

}  // namespace opcert
