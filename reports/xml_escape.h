// Text made safe for an XML 1.0 document: markup characters escaped, and what XML 1.0 cannot hold
// at all (control characters, invalid UTF-8) replaced visibly instead of breaking the parser.
#pragma once

#include <string>
#include <string_view>

namespace opcert {

/// For element content: & < > escaped; \r kept as &#13;. A control character XML 1.0 forbids even
/// as a reference (U+0000-U+001F but tab, newline, carriage return) becomes the text "\xHH"; bytes
/// that are not UTF-8, and U+FFFE / U+FFFF, become U+FFFD.
std::string xml_escape_text(std::string_view text);

/// For a double-quoted attribute value: as xml_escape_text, plus " and ' escaped, and tab,
/// newline and carriage return as references so attribute normalisation keeps them.
std::string xml_escape_attribute(std::string_view text);

}  // namespace opcert
