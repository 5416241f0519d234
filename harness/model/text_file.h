// Reading a whole file into memory, as every reader of opcert's files (reports, suites, plans,
// bundles, golden manifests) does before it parses; each says what a missing file means to it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace opcert {

/// The file's bytes, or nullopt when it cannot be opened or read (errno says why).
std::optional<std::string> read_text_file(const std::filesystem::path& path);

}  // namespace opcert
