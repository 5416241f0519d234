// The one-line command that reruns exactly one case on one implementation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loader/backend_source.h"

namespace opcert {

/// `s` quoted for a POSIX shell when it needs it ('...' with embedded quotes as '\'').
std::string shell_quote(const std::string& s);

/// `s` with every ECMAScript regex metacharacter escaped, so it matches itself literally.
std::string regex_escape(const std::string& s);

/// The options that make a backend loadable again: "--plugin LIB" for a library given directly,
/// "--plugin-dir DIR" for one found through a manifest; nothing for a built-in.
std::vector<std::string> plugin_options_for(const BackendSource& source);

struct ReproContext {
  std::string suite;                       // as the user can name it again (name or absolute path)
  uint64_t seed = 0;
  std::vector<std::string> extra_options;  // --platform NAME, --platform-config FILE, --allow-insecure-plugins
};

/// "opcert run --backend b --impl key --suite s --filter '^id$' --seed n [--devices i] [plugin options]
/// [extra]": `device` for a result measured on a chosen device (--devices).
std::string repro_line(const std::string& backend, const BackendSource& source, const std::string& impl_key,
                       const std::string& case_id, const ReproContext& context,
                       const std::optional<int>& device = std::nullopt);

}  // namespace opcert
