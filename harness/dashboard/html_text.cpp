#include "dashboard/html_text.h"

#include "reports/xml_escape.h"

namespace opcert {

std::string html_escape(std::string_view text) {
  std::string out;
  for (const char ch : xml_escape_text(text)) {
    if (ch == '"')
      out += "&quot;";
    else if (ch == '\'')
      out += "&#39;";
    else
      out += ch;
  }
  return out;
}

std::string json_for_script(const nlohmann::json& doc) {
  const std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // Outside strings JSON has none of these; inside them the escapes read back the same characters,
  // and the HTML parser sees no tag, comment or reference in the element.
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    if (ch == '<')
      out += "\\u003c";
    else if (ch == '>')
      out += "\\u003e";
    else if (ch == '&')
      out += "\\u0026";
    else
      out += ch;
  }
  return out;
}

}  // namespace opcert
