// The configs/*.json files, embedded into the binary at build time (embed_configs.cmake writes
// the definition) so built-in platforms need no runtime path lookup.
#pragma once

#include <span>
#include <string_view>

namespace opcert {

struct BuiltinPlatformFile {
  std::string_view path;  ///< relative to the source tree, e.g. "configs/cpu.json", for messages
  std::string_view text;  ///< the file's bytes
};

/// In file-name order.
std::span<const BuiltinPlatformFile> builtin_platform_files();

}  // namespace opcert
