// The machine-readable inventory behind `opcert list`: backends (with provenance, devices and
// implementations), unavailable plugins with reasons, the op catalogue and the platforms.
// The human listing is rendered from the same document, so the two never disagree.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "loader/platform/platform_config.h"
#include "loader/registry.h"

namespace opcert {

nlohmann::json list_document(const std::vector<BackendHandle*>& backends, const Registry& registry,
                             const PlatformCatalog& platforms);

/// The same document as aligned plain text.
std::string render_list_text(const nlohmann::json& doc);

}  // namespace opcert
