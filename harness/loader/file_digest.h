// SHA-256 of a file, for plugin provenance in reports.
#pragma once

#include <string>

namespace opcert {

/// Lowercase hex SHA-256 of the file's bytes. Throws std::runtime_error if it cannot be read.
std::string sha256_file_hex(const std::string& path);

}  // namespace opcert
