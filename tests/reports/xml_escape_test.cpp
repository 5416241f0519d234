#include "reports/xml_escape.h"

#include <gtest/gtest.h>

namespace opcert {
namespace {

TEST(XmlEscape, MarkupCharacters) {
  EXPECT_EQ(xml_escape_text(R"(a<b>&"c"'d')"), R"(a&lt;b&gt;&amp;"c"'d')");
  EXPECT_EQ(xml_escape_attribute(R"(a<b>&"c"'d')"), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
  EXPECT_EQ(xml_escape_text("]]>"), "]]&gt;");
}

TEST(XmlEscape, WhitespaceSurvivesInAttributes) {
  EXPECT_EQ(xml_escape_text("a\tb\nc\rd"), "a\tb\nc&#13;d");
  EXPECT_EQ(xml_escape_attribute("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
}

TEST(XmlEscape, ForbiddenControlCharactersBecomeVisible) {
  EXPECT_EQ(xml_escape_text(std::string("nul\0esc\x1b[31m", 12)), "nul\\x00esc\\x1B[31m");
  EXPECT_EQ(xml_escape_attribute("\x01\x1f"), "\\x01\\x1F");
  EXPECT_EQ(xml_escape_text("del\x7f"), "del\x7f");  // allowed in XML 1.0
}

TEST(XmlEscape, Utf8KeptAndInvalidBytesReplaced) {
  EXPECT_EQ(xml_escape_text("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(xml_escape_text("a\xff" "b"), "a" + fffd + "b");
  EXPECT_EQ(xml_escape_text("\xC0\xAF"), fffd + fffd);             // overlong '/'
  EXPECT_EQ(xml_escape_text("\xED\xA0\x80"), fffd + fffd + fffd);  // a surrogate
  EXPECT_EQ(xml_escape_text("\xE2\x82"), fffd + fffd);             // cut short
  EXPECT_EQ(xml_escape_text("\xEF\xBF\xBE"), fffd);                // U+FFFE, not a character
}

}  // namespace
}  // namespace opcert
