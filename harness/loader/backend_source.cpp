#include "loader/backend_source.h"

namespace opcert {

std::string BackendSource::describe() const {
  if (kind == Kind::kBuiltin) return builtin_label.empty() ? "built-in" : "built-in " + builtin_label;
  return manifest_path.empty() ? library_path : manifest_path;
}

}  // namespace opcert
