// Where a loaded backend came from: linked into opcert, or a plugin library (with provenance).
#pragma once

#include <string>

namespace opcert {

struct BackendSource {
  enum class Kind { kBuiltin, kPlugin };
  Kind kind = Kind::kBuiltin;
  std::string library_path;   // canonical path of the plugin library; empty for built-ins
  std::string manifest_path;  // the manifest that named it; empty for built-ins and --plugin LIB
  std::string sha256;         // hex digest of the library file; empty for built-ins
  std::string declared_name;  // the backend name its manifest declares; must match what it reports
  std::string declared_abi;   // "MAJOR.MINOR" its manifest declares; empty without a manifest naming a library
  std::string builtin_label;  // the registration label of a built-in ("cpu"); empty for plugins
  // A backend of a library that serves several (ABI 1.3: the Python bridge): which one, where
  // the library finds it, and where it was found, for people ("python entry point ...").
  std::string backend_name;
  std::string entry;
  std::string origin;
  bool listed_by_opcert_bridge = false;  // found by opcert's own Python bridge, wherever opcert runs

  /// "built-in <label>", the manifest path, the origin of a listed backend, or the library path:
  /// how a person finds it again.
  std::string describe() const;

  /// "its manifest declares ABI 1.0, the library reports 1.3" when declared_abi is set and differs
  /// from the version the library reports; "" otherwise. A warning: the library's own table is what
  /// the host trusts, but a manifest that says otherwise is stale or was written for another build.
  std::string abi_declaration_mismatch(int reported_major, int reported_minor) const;
};

}  // namespace opcert
