#include "loader/registry.h"

#include <fmt/format.h>

#include "loader/name_selection.h"

namespace opcert {

Registry::~Registry() {
  backends_.clear();  // finalize every backend while its library is still loaded
  libraries_.clear();
}

void Registry::add_builtin(const std::string& label, opcert_get_api_fn get_api) {
  try {
    BackendSource source;
    source.builtin_label = label;
    add(get_api(), std::move(source), nullptr);
  } catch (const std::exception& e) {
    add_unavailable("built-in " + label, e.what());
  }
}

void Registry::add_plugin(std::shared_ptr<DynamicLibrary> library, const opcert_api* api, BackendSource source) {
  const std::string where = source.describe();
  try {
    add(api, std::move(source), std::move(library));
  } catch (const std::exception& e) {
    add_unavailable(where, e.what());
  }
}

void Registry::add(const opcert_api* api, BackendSource source, std::shared_ptr<DynamicLibrary> library) {
  auto handle = BackendHandle::open(api, std::move(source));
  const std::string& declared = handle->source().declared_name;
  if (!declared.empty() && declared != handle->name())
    throw std::runtime_error(fmt::format("the manifest declares backend '{}' but the library reports '{}'", declared,
                                         handle->name()));
  if (const BackendHandle* existing = find(handle->name()))
    throw std::runtime_error(fmt::format("duplicate backend name '{}': already provided by {}; this one comes from {}",
                                         handle->name(), existing->source().describe(),
                                         handle->source().describe()));
  if (library) libraries_.push_back(std::move(library));
  backends_.push_back(std::move(handle));
}

void Registry::add_unavailable(std::string source, std::string reason) {
  unavailable_.push_back({std::move(source), std::move(reason), {}, {}});
}

void Registry::add_refused(std::string source, std::string step, StepRefusal refusal) {
  unavailable_.push_back({std::move(source), std::move(refusal.reason), std::move(step), std::move(refusal.stderr_tail)});
}

BackendHandle* Registry::find(const std::string& name) const {
  for (const auto& b : backends_)
    if (b->name() == name) return b.get();
  return nullptr;
}

std::vector<BackendHandle*> Registry::select(const std::string& selection) const {
  const NameSelection sel(selection);
  std::vector<BackendHandle*> out;
  for (const auto& b : backends_)
    if (sel.matches(b->name())) out.push_back(b.get());
  return out;
}

}  // namespace opcert
