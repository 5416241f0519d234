// The one live registry of backends: built-ins registered by the binary, plugins found by
// discovery. Each entry is an initialised BackendHandle; every plugin that could not be used is
// kept with its reason so `opcert list` and reports can show it.
#pragma once

#include <opcert/backend_abi.h>

#include <memory>
#include <string>
#include <vector>

#include "loader/backend_handle.h"
#include "loader/dynamic_library.h"
#include "loader/plugin_guard.h"

namespace opcert {

/// A plugin (or built-in) that was skipped or failed, and why.
struct UnavailableBackend {
  std::string source;  // manifest path, library path, or "built-in <name>"
  std::string reason;  // one line
  // A plugin the guard refused (plugin_guard.h): the step, and its probe child's last stderr lines.
  std::string refused_step;
  std::vector<std::string> stderr_tail;
};

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;
  ~Registry();

  /// Initialises an in-tree backend from its entry point. A failure is recorded, not thrown.
  void add_builtin(const std::string& label, opcert_get_api_fn get_api);

  /// Initialises a backend from a table that came from `library` (kept alive by the registry).
  /// Refuses a duplicate backend name, naming both sources. A failure is recorded, not thrown.
  void add_plugin(std::shared_ptr<DynamicLibrary> library, const opcert_api* api, BackendSource source);

  /// Records a plugin that was skipped before it could be initialised.
  void add_unavailable(std::string source, std::string reason);

  /// Records a plugin whose `step` the discovery guard refused (plugin_guard.h).
  void add_refused(std::string source, std::string step, StepRefusal refusal);

  const std::vector<std::unique_ptr<BackendHandle>>& backends() const { return backends_; }
  const std::vector<UnavailableBackend>& unavailable() const { return unavailable_; }

  /// The backend with this name, or nullptr.
  BackendHandle* find(const std::string& name) const;

  /// Backends whose names match a selection such as "cpu,cuda", "*", "cu*,!cuda-tf32" (see
  /// name_selection.h). Order is registration order.
  std::vector<BackendHandle*> select(const std::string& selection) const;

 private:
  void add(const opcert_api* api, BackendSource source, std::shared_ptr<DynamicLibrary> library);

  // Declared before backends_ so that libraries are unloaded only after every backend finalized.
  std::vector<std::shared_ptr<DynamicLibrary>> libraries_;
  std::vector<std::unique_ptr<BackendHandle>> backends_;
  std::vector<UnavailableBackend> unavailable_;
};

}  // namespace opcert
