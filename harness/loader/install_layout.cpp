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

std::optional<std::filesystem::path> python_bridge_library() {
  const std::string built = OPCERT_PYTHON_BRIDGE_BUILD_PATH;
  if (built.empty()) return std::nullopt;
  if (installed_data_dir()) {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) return (exe.parent_path() / OPCERT_PYTHON_BRIDGE_FROM_BIN).lexically_normal();
  }
  return std::filesystem::path(built);
}

}  // namespace opcert
