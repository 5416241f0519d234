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

namespace {

// A library beside an install's executable (`from_bin`, relative to <prefix>/bin), else the build tree's.
std::filesystem::path installed_or_built(const char* from_bin, const char* built) {
  if (installed_data_dir()) {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) return (exe.parent_path() / from_bin).lexically_normal();
  }
  return built;
}

}  // namespace

std::optional<std::filesystem::path> python_bridge_library() {
  const std::string built = OPCERT_PYTHON_BRIDGE_BUILD_PATH;
  if (built.empty()) return std::nullopt;
  return installed_or_built(OPCERT_PYTHON_BRIDGE_FROM_BIN, OPCERT_PYTHON_BRIDGE_BUILD_PATH);
}

std::filesystem::path mutants_library() { return installed_or_built(OPCERT_MUTANTS_FROM_BIN, OPCERT_MUTANTS_BUILD_PATH); }

std::filesystem::path plugin_probe_program() {
  return installed_or_built(OPCERT_PLUGIN_PROBE_FROM_BIN, OPCERT_PLUGIN_PROBE_BUILD_PATH);
}

}  // namespace opcert
