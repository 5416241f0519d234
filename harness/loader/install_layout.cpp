#include "loader/install_layout.h"

namespace opcert {

std::optional<std::filesystem::path> installed_data_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  const std::filesystem::path data = (exe.parent_path() / OPCERT_DATA_FROM_BIN).lexically_normal();
  if (!std::filesystem::is_directory(data / "suites", ec)) return std::nullopt;
  return data;
}

}  // namespace opcert
