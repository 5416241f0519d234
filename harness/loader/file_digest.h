// SHA-256 of a file, for plugin provenance in reports, and of bytes in memory (golden sets).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace opcert {

/// Lowercase hex SHA-256 of the file's bytes. Throws std::runtime_error if it cannot be read.
std::string sha256_file_hex(const std::string& path);

/// Lowercase hex SHA-256 of `bytes`.
std::string sha256_hex(std::span<const std::byte> bytes);

/// Lowercase hex SHA-256 of a text's bytes (a document, a canonical JSON dump).
std::string sha256_hex(std::string_view text);

}  // namespace opcert
