#include "certify/bundle_checksums.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "loader/file_digest.h"
#include "reports/report_writer.h"
#include "model/text_file.h"

namespace opcert {

namespace fs = std::filesystem;

std::string read_bundle_file(const fs::path& path) { return read_text_file(path).value_or(""); }

std::vector<std::string> bundle_files(const fs::path& bundle) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(bundle)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), bundle).generic_string();
    if (rel == kChecksumFile || rel == kSignatureFile) continue;
    files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  return files;
}

void write_checksums(const fs::path& bundle) {
  std::string text;
  for (const auto& f : bundle_files(bundle)) text += sha256_file_hex((bundle / f).string()) + "  " + f + "\n";
  write_file_atomically(bundle / kChecksumFile, text);
}

std::vector<std::string> checksum_problems(const fs::path& bundle) {
  std::vector<std::string> problems;
  std::ifstream in(bundle / kChecksumFile);
  if (!in) return {fmt::format("{}: missing", kChecksumFile)};
  std::map<std::string, std::string> listed;  // path -> hex
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const bool well_formed = line.size() > 66 && line.compare(64, 2, "  ") == 0 &&
                             line.find_first_not_of("0123456789abcdef") >= 64;
    if (!well_formed) {
      problems.push_back(fmt::format("{} line {}: malformed (not '<sha256>  <path>'): the checksum list was changed",
                                     kChecksumFile, n));
      continue;
    }
    listed[line.substr(66)] = line.substr(0, 64);
  }
  const auto present = bundle_files(bundle);
  for (const auto& [path, hex] : listed) {
    if (!fs::is_regular_file(bundle / path)) {
      problems.push_back(fmt::format("{}: listed in {} but missing", path, kChecksumFile));
      continue;
    }
    if (sha256_file_hex((bundle / path).string()) != hex)
      problems.push_back(fmt::format("{}: checksum mismatch: the file, or its line in {}, was changed", path,
                                     kChecksumFile));
  }
  for (const auto& path : present)
    if (!listed.contains(path)) problems.push_back(fmt::format("{}: not in {}: added to the bundle", path, kChecksumFile));
  return problems;
}

}  // namespace opcert
