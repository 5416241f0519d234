#include "reports/jsonl_lines.h"

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "model/text_file.h"

namespace opcert {

std::vector<JsonlLine> read_jsonl_lines(const std::filesystem::path& path, bool* dropped_partial_line) {
  if (dropped_partial_line != nullptr) *dropped_partial_line = false;
  const std::optional<std::string> read = read_text_file(path);
  if (!read) throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(errno));
  const std::string& text = *read;
  std::vector<JsonlLine> lines;
  std::size_t begin = 0;
  for (std::size_t line_no = 1; begin < text.size(); ++line_no) {
    const std::size_t newline = text.find('\n', begin);
    const bool last_unterminated = newline == std::string::npos;
    const std::size_t end = last_unterminated ? text.size() : newline;
    const std::string_view line(text.data() + begin, end - begin);
    begin = last_unterminated ? text.size() : newline + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    try {
      lines.push_back({line_no, std::string(line), nlohmann::json::parse(line)});
    } catch (const nlohmann::json::exception& e) {
      if (last_unterminated) {
        if (dropped_partial_line != nullptr) *dropped_partial_line = true;
        break;
      }
      throw std::runtime_error(path.string() + ":" + std::to_string(line_no) + ": not JSON: " + e.what());
    }
  }
  return lines;
}

}  // namespace opcert
