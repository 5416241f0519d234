// Selecting backends by name globs: "cpu", "cpu,cuda", "cu*", "*,!cpu" (a leading '!' excludes).
// An empty selection or one made only of exclusions starts from everything.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opcert {

class NameSelection {
 public:
  explicit NameSelection(std::string_view selection);
  bool matches(std::string_view name) const;
  /// The include patterns that matched nothing in `names` (for a clear error message).
  std::vector<std::string> unmatched(const std::vector<std::string>& names) const;

 private:
  std::vector<std::string> include_;
  std::vector<std::string> exclude_;
};

}  // namespace opcert
