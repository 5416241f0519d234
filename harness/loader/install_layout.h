// Where an installed opcert finds its data: the suites under <prefix>/share/opcert, found from
// the executable's own path, so that an install moved to another prefix, or whose source tree is
// gone, stands alone (docs/CLI.md, "Files").
#pragma once

#include <filesystem>
#include <optional>

namespace opcert {

/// <prefix>/share/opcert when this program runs from an install (the data folder `cmake --install`
/// lays out, seen from <prefix>/bin, holds suites/); nullopt for a program in a build tree.
std::optional<std::filesystem::path> installed_data_dir();

/// The Python bridge library this opcert was built with (docs/PYTHON.md): an install's
/// <libdir>/opcert/libopcert_python.so, else the build tree's; nullopt when built without it.
std::optional<std::filesystem::path> python_bridge_library();

/// The mutant backend `opcert selftest` loads (backends/mutants): an install's
/// <libdir>/opcert/libopcert_mutants.so, else the build tree's.
std::filesystem::path mutants_library();

/// The plugin probe's program, the child each plugin-loading verb starts first
/// (session/worker/plugin_probe.h): an install's <libexecdir>/opcert/opcert-plugin-probe, else the build tree's.
std::filesystem::path plugin_probe_program();

}  // namespace opcert
