#include "loader/backend_source.h"

namespace opcert {

std::string BackendSource::describe() const {
  if (kind == Kind::kBuiltin) return builtin_label.empty() ? "built-in" : "built-in " + builtin_label;
  if (!manifest_path.empty()) return manifest_path;
  return origin.empty() ? library_path : origin;
}

}  // namespace opcert
