#include "loader/backend_source.h"

namespace opcert {

std::string BackendSource::describe() const {
  if (kind == Kind::kBuiltin) return builtin_label.empty() ? "built-in" : "built-in " + builtin_label;
  if (!manifest_path.empty()) return manifest_path;
  return origin.empty() ? library_path : origin;
}

std::string BackendSource::abi_declaration_mismatch(int reported_major, int reported_minor) const {
  const std::string reported = std::to_string(reported_major) + "." + std::to_string(reported_minor);
  if (declared_abi.empty() || declared_abi == reported) return "";
  return "its manifest declares ABI " + declared_abi + ", the library reports " + reported;
}

}  // namespace opcert
