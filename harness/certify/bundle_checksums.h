// The checksum list of a certification bundle: SHA256SUMS at its root, in sha256sum's format
// ("<64 hex>  <path>"), one line per file of the bundle but itself and its signature, sorted by
// path. `sha256sum -c SHA256SUMS` checks a bundle without opcert.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace opcert {

inline constexpr const char* kChecksumFile = "SHA256SUMS";
inline constexpr const char* kSignatureFile = "SHA256SUMS.sig";

/// The bytes of a file of the bundle ("" when it cannot be read: the checks say what is missing).
std::string read_bundle_file(const std::filesystem::path& path);

/// Every regular file under `bundle`, relative and sorted, but the checksum list and its signature.
std::vector<std::string> bundle_files(const std::filesystem::path& bundle);

/// Writes SHA256SUMS over bundle_files(bundle).
void write_checksums(const std::filesystem::path& bundle);

/// What does not match: one line per problem, naming the file (a changed file, one missing, one
/// not listed, a malformed line of SHA256SUMS). Empty when every file matches.
std::vector<std::string> checksum_problems(const std::filesystem::path& bundle);

}  // namespace opcert
