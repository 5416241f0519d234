#include "model/strict_json.h"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <vector>

#include "model/input_error.h"

namespace opcert {
namespace {

using nlohmann::json;

// 1-based line and column of a 0-based byte offset; UTF-8 continuation bytes add no column so
// the column matches what an editor shows.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      column = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++column;
    }
  }
  return {line, column};
}

// For a well-formed token in the wrong place ("unexpected string literal", typically a missing
// comma), nlohmann reports its last character; step back to its first, where a reader looks.
std::size_t token_start(std::string_view text, std::size_t last) {
  if (last >= text.size()) return last;
  if (text[last] == '"') {
    // The lexer accepted the string, so the first quote not escaped by a backslash opens it.
    for (std::size_t i = last; i-- > 0;) {
      if (text[i] != '"') continue;
      std::size_t backslashes = 0;
      while (backslashes < i && text[i - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return i;
    }
    return last;
  }
  auto in_literal = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-';
  };
  while (last > 0 && in_literal(text[last]) && in_literal(text[last - 1])) --last;
  return last;
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line 1, column 2: <detail>";
// keep the detail (its own line/column count bytes and go wrong on newlines) and bound the
// "last read" excerpt so an unterminated string cannot produce a huge message.
std::string error_detail(const std::string& what) {
  std::string detail = what;
  if (auto end = detail.find("] "); detail.starts_with('[') && end != std::string::npos)
    detail = detail.substr(end + 2);
  if (auto end = detail.find(": "); detail.starts_with("parse error") && end != std::string::npos)
    detail = detail.substr(end + 2);
  constexpr std::size_t kMax = 200;
  if (detail.size() > kMax) detail = detail.substr(0, kMax) + "...";
  return one_line(detail);
}

// Tracks the open containers during parsing to report a repeated key with its dotted path.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& source) : source_(source) {}

  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        frames_.push_back({event == json::parse_event_t::object_start, {}, {}, 0});
        break;
      case json::parse_event_t::key: {
        auto& frame = frames_.back();
        frame.key = parsed.get<std::string>();
        if (!frame.keys.insert(frame.key).second)
          throw InputError(one_line(fmt::format("{}: duplicate field '{}'; keep only one of them", source_, path())));
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        next_element();
        break;
      case json::parse_event_t::value:
        next_element();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;    // the object's current key
    std::size_t index;  // the array's current element
  };

  void next_element() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }

  std::string path() const {
    std::string out;
    for (const auto& f : frames_) {
      if (f.object)
        out += (out.empty() ? "" : ".") + f.key;
      else
        out += fmt::format("[{}]", f.index);
    }
    return out;
  }

  const std::string& source_;
  std::vector<Frame> frames_;
};

}  // namespace

std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\u{:04x}", u);
    else
      out += c;
  }
  return out;
}

json parse_strict_json(std::string_view text, const std::string& source) {
  try {
    return json::parse(text.begin(), text.end(), DuplicateKeyCheck(source));
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based position of the character that failed (size + 1 at end of input).
    // A lexer error ("invalid literal; last read: ...") is at that character itself.
    std::size_t offset = e.byte == 0 ? 0 : e.byte - 1;
    if (std::string_view(e.what()).find("; last read: ") == std::string_view::npos) offset = token_start(text, offset);
    const auto [line, column] = line_column(text, offset);
    throw InputError(fmt::format("{}:{}:{}: invalid JSON: {}", source, line, column, error_detail(e.what())));
  } catch (const json::exception& e) {
    // E.g. out_of_range.406 for a number too large for a double; nlohmann gives no position.
    throw InputError(fmt::format("{}: invalid JSON: {}", source, error_detail(e.what())));
  }
}

}  // namespace opcert
