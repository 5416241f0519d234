#include "session/job/repro.h"

#include <filesystem>
#include <string_view>

namespace opcert {

std::string shell_quote(const std::string& s) {
  constexpr std::string_view kSafe =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=+@%";
  if (!s.empty() && s.find_first_not_of(kSafe) == std::string::npos) return s;
  std::string quoted = "'";
  for (char c : s) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string regex_escape(const std::string& s) {
  constexpr std::string_view kMeta = "\\^$.|?*+()[]{}";
  std::string out;
  for (char c : s) {
    if (kMeta.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::vector<std::string> plugin_options_for(const BackendSource& source) {
  if (source.kind != BackendSource::Kind::kPlugin) return {};
  if (source.listed_by_opcert_bridge) return {};  // found again wherever opcert runs: no flag needed
  if (!source.manifest_path.empty())
    return {"--plugin-dir", std::filesystem::path(source.manifest_path).parent_path().string()};
  return {"--plugin", source.library_path};
}

std::string repro_line(const std::string& backend, const BackendSource& source, const std::string& impl_key,
                       const std::string& case_id, const ReproContext& context, const std::optional<int>& device) {
  std::string line = "opcert run --backend " + shell_quote(backend) + " --impl " + shell_quote(impl_key) +
                     " --suite " + shell_quote(context.suite) + " --filter " +
                     shell_quote("^" + regex_escape(case_id) + "$") + " --seed " + std::to_string(context.seed);
  if (device) line += " --devices " + std::to_string(*device);
  for (const auto& option : plugin_options_for(source)) line += " " + shell_quote(option);
  for (const auto& option : context.extra_options) line += " " + shell_quote(option);
  return line;
}

}  // namespace opcert
