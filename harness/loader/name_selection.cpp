#include "loader/name_selection.h"

#include <fnmatch.h>

#include <algorithm>

namespace opcert {
namespace {

bool glob_match(const std::string& pattern, std::string_view name) {
  return fnmatch(pattern.c_str(), std::string(name).c_str(), 0) == 0;
}

}  // namespace

NameSelection::NameSelection(std::string_view selection) {
  std::size_t start = 0;
  while (start <= selection.size()) {
    std::size_t end = selection.find(',', start);
    if (end == std::string_view::npos) end = selection.size();
    std::string item(selection.substr(start, end - start));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) {
      if (item.front() == '!')
        exclude_.push_back(item.substr(1));
      else
        include_.push_back(item);
    }
    start = end + 1;
  }
}

bool NameSelection::matches(std::string_view name) const {
  const auto hit = [&](const std::string& p) { return glob_match(p, name); };
  if (std::any_of(exclude_.begin(), exclude_.end(), hit)) return false;
  return include_.empty() || std::any_of(include_.begin(), include_.end(), hit);
}

std::vector<std::string> NameSelection::unmatched(const std::vector<std::string>& names) const {
  std::vector<std::string> out;
  for (const auto& pattern : include_)
    if (std::none_of(names.begin(), names.end(), [&](const std::string& n) { return glob_match(pattern, n); }))
      out.push_back(pattern);
  return out;
}

}  // namespace opcert
