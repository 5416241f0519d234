#include "certify/bundle_verifier.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "certify/bundle_checksums.h"
#include "certify/bundle_consistency.h"
#include "certify/bundle_signature.h"
#include "certify/certification_bundle.h"
#include "loader/file_digest.h"
#include "model/input_error.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

VerifyOutcome verify_bundle(const fs::path& bundle, const VerifyOptions& options) {
  if (!fs::is_directory(bundle) ||
      (!fs::exists(bundle / kManifestFile) && !fs::exists(bundle / kChecksumFile)))
    throw InputError(fmt::format("'{}' is not a certification bundle (no {} or {}): give the directory `opcert "
                                 "certify --out` wrote",
                                 bundle.string(), kManifestFile, kChecksumFile));
  VerifyOutcome out;
  out.problems = checksum_problems(bundle);
  try {
    out.manifest = json::parse(read_bundle_file(bundle / kManifestFile));
  } catch (const std::exception& e) {
    out.problems.push_back(fmt::format("{}: not readable JSON ({})", kManifestFile, e.what()));
  }
  for (auto& p : consistency_problems(bundle, out.manifest)) out.problems.push_back(std::move(p));
  const json signing = out.manifest.is_object() ? out.manifest.value("signing", json(nullptr)) : json(nullptr);
  const bool signed_bundle = fs::exists(bundle / kSignatureFile);
  if (signing.is_object() && !signed_bundle)
    out.problems.push_back(fmt::format("{}: missing, but {} says the bundle is signed", kSignatureFile, kManifestFile));
  if (!options.public_key.empty()) {
    if (!signed_bundle) {
      out.problems.push_back(fmt::format("{}: missing: the bundle is not signed", kSignatureFile));
    } else {
      const std::string fingerprint = ed25519_fingerprint(options.public_key, false);
      const bool verifies = verify_ed25519(options.public_key, read_bundle_file(bundle / kChecksumFile),
                                           trimmed(read_bundle_file(bundle / kSignatureFile)));
      if (!verifies)
        out.problems.push_back(fmt::format("{}: the signature of {} does not verify with {} (the list or the "
                                           "signature was changed, or another key signed it)",
                                           kSignatureFile, kChecksumFile, options.public_key));
      if (signing.is_object() && signing.value("public_key_fingerprint", "") != fingerprint)
        out.problems.push_back(fmt::format("{}: signed by key {}, not by {} ({})", kManifestFile,
                                           signing.value("public_key_fingerprint", "(none)"), options.public_key,
                                           fingerprint));
    }
  } else if (signed_bundle) {
    out.notes.push_back(fmt::format("signed by {}: give --pubkey FILE to check the signature",
                                    signing.is_object() ? signing.value("public_key_fingerprint", "?") : "?"));
    out.integrity_only = "signature not checked: no --pubkey";
  } else {
    out.notes.push_back("not signed: the checksums and the files' agreement were checked, not who wrote them");
    out.integrity_only = "unsigned";
  }
  if (!options.plugin.empty()) {
    const json backend = out.manifest.is_object() ? out.manifest.value("backend", json::object()) : json::object();
    const std::string certified = backend.value("sha256", json(nullptr)).is_string() ? backend["sha256"].get<std::string>() : "";
    if (certified.empty()) {
      out.problems.push_back(fmt::format("{}: the certified backend '{}' is built in, not a plugin library: --plugin "
                                         "has nothing to match",
                                         kManifestFile, backend.value("name", "?")));
    } else if (!fs::is_regular_file(options.plugin)) {
      throw InputError(fmt::format("--plugin '{}': no such file", options.plugin));
    } else if (const std::string got = sha256_file_hex(options.plugin); got != certified) {
      out.problems.push_back(fmt::format("--plugin {}: SHA-256 {} is not the certified library's {}", options.plugin,
                                         got, certified));
    }
  }
  return out;
}

}  // namespace opcert
