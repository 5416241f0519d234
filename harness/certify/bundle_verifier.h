// `opcert verify`'s checks of a certification bundle that need nothing but the bundle: every
// checksum, that the files agree with each other (bundle_consistency.h), the signature against the
// vendor's public key, and that a given plugin library is the one certified. (Re-running cases is
// bundle_rerun.h's: it starts opcert itself.)
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace opcert {

struct VerifyOptions {
  std::string public_key;  ///< --pubkey: the Ed25519 public key (PEM) the bundle must be signed with
  std::string plugin;      ///< --plugin: the library that must be the certified one
};

struct VerifyOutcome {
  std::vector<std::string> problems;  ///< each names the file or the claim that fails; empty: valid
  std::vector<std::string> notes;     ///< what was not checked, and why
  /// Why no signature was checked ("unsigned", "signature not checked: no --pubkey"): the verdict
  /// then says "integrity only", since whoever edits such a bundle can re-hash it. "" when checked.
  std::string integrity_only;
  nlohmann::json manifest;            ///< as read (null when it could not be)
};

/// Throws InputError when `bundle` is not a bundle at all (no directory, or neither manifest.json
/// nor SHA256SUMS in it).
VerifyOutcome verify_bundle(const std::filesystem::path& bundle, const VerifyOptions& options);

}  // namespace opcert
