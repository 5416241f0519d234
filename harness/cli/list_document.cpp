#include "cli/list_document.h"

#include <fmt/format.h>

#include <filesystem>

#include "cli/build_info.h"
#include "opkit/op_registry.h"
#include "reports/json_report_writer.h"

namespace opcert {
namespace {

using nlohmann::json;

std::string device_type_name(int32_t type) {
  switch (type) {
    case OPCERT_DEVICE_CPU: return "cpu";
    case OPCERT_DEVICE_CUDA: return "cuda";
    default: return "other";
  }
}

json source_json(const BackendSource& s, const PackageIdentity& package) {
  if (s.kind == BackendSource::Kind::kBuiltin) return {{"kind", "built-in"}};
  json j = {{"kind", "plugin"}, {"library_path", s.library_path}, {"manifest_path", s.manifest_path}, {"sha256", s.sha256}};
  // A backend served by a bridge: where it was found, and the package its code comes from.
  if (!s.origin.empty()) j["origin"] = s.origin;
  if (!package.empty()) j["package"] = package_json(package);
  return j;
}

// Platforms whose production choice for the op is this implementation key.
json production_on(const PlatformCatalog& platforms, const ImplementationInfo& impl) {
  json names = json::array();
  for (const auto& p : platforms.all()) {
    auto it = p.implementations.find(impl.op);
    if (it != p.implementations.end() && it->second == impl.key) names.push_back(p.name);
  }
  return names;
}

json backend_json(const BackendHandle& b, const PlatformCatalog& platforms) {
  json devices = json::array();
  for (const auto& d : b.devices())
    devices.push_back({{"type", device_type_name(d.device.type)}, {"index", d.device.index}, {"name", d.name},
                       {"memory_bytes", d.memory_bytes}, {"compute_units", d.compute_units},
                       {"uuid", d.uuid.empty() ? json(nullptr) : json(d.uuid)},  // ABI 1.4; null: unknown
                       {"pci_bus_id", d.pci_bus_id.empty() ? json(nullptr) : json(d.pci_bus_id)}});
  json impls = json::array();
  for (const auto& i : b.implementations())
    impls.push_back({{"key", i.key}, {"op", i.op}, {"description", i.description},
                     {"status", "available"}, {"production_on", production_on(platforms, i)}});
  json warnings = json::array();
  if (const auto abi = b.source().abi_declaration_mismatch(b.abi_major(), b.abi_minor()); !abi.empty()) warnings.push_back(abi);
  return {{"name", b.name()},
          {"version", b.version()},
          {"vendor", b.vendor()},
          {"description", b.description()},
          {"abi_version", fmt::format("{}.{}", b.abi_major(), b.abi_minor())},
          {"events", b.has_events()},
          {"collectives", b.has_collectives()},
          {"source", source_json(b.source(), b.package())},
          {"devices", devices},
          {"implementations", impls},
          {"warnings", warnings}};
}

}  // namespace

json list_document(const std::vector<BackendHandle*>& backends, const Registry& registry,
                   const PlatformCatalog& platforms) {
  json doc;
  doc["opcert_version"] = std::string(build_info().version);
  doc["abi_version"] = fmt::format("{}.{}", OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR);
  doc["backends"] = json::array();
  for (const BackendHandle* b : backends) doc["backends"].push_back(backend_json(*b, platforms));
  doc["unavailable"] = json::array();
  for (const auto& u : registry.unavailable())
    doc["unavailable"].push_back({{"source", u.source}, {"reason", u.reason}, {"stderr_tail", u.stderr_tail}});
  doc["ops"] = json::array();
  for (const OpDescriptor* op : registered_ops())
    doc["ops"].push_back({{"name", op->name},
                          {"family", op->family == OpFamily::kCollective ? "collective" : "compute"},
                          {"summary", op->summary}});
  doc["platforms"] = json::array();
  for (const auto& p : platforms.all())
    doc["platforms"].push_back({{"name", p.name}, {"backend", p.backend}, {"device", p.device}, {"source", p.source}});
  return doc;
}

std::string render_list_text(const json& doc) {
  std::string out = fmt::format("Backends ({}):\n", doc["backends"].size());
  for (const auto& b : doc["backends"]) {
    const auto& src = b["source"];
    std::string origin = src["kind"] == "plugin"
                             ? fmt::format("plugin {} sha256:{}", src["library_path"].get<std::string>(),
                                           src["sha256"].get<std::string>().substr(0, 16))
                             : std::string("built-in");
    // A bridged backend: the package its code comes from is what a person recognises.
    if (const auto p = src.find("package"); p != src.end())
      origin = fmt::format("package {} {} sha256:{} via {}", (*p)["name"].get<std::string>(),
                           (*p)["version"].get<std::string>(), (*p)["sha256"].get<std::string>().substr(0, 16),
                           std::filesystem::path(src["library_path"].get<std::string>()).filename().string());
    out += fmt::format("  {} {}  ABI {}  [{}]\n", b["name"].get<std::string>(), b["version"].get<std::string>(),
                       b["abi_version"].get<std::string>(), origin);
    for (const auto& w : b["warnings"]) out += fmt::format("    warning: {}\n", w.get<std::string>());
    if (!b["description"].get<std::string>().empty())
      out += fmt::format("    {}\n", b["description"].get<std::string>());
    for (const auto& d : b["devices"])
      out += fmt::format("    device {}:{}  {}{}{}\n", d["type"].get<std::string>(), d["index"].get<int>(),
                         d["name"].get<std::string>(), d["uuid"].is_string() ? "  " + d["uuid"].get<std::string>() : "",
                         d["pci_bus_id"].is_string() ? "  PCI " + d["pci_bus_id"].get<std::string>() : "");
    out += fmt::format("    events: {}  collectives: {}\n", b["events"].get<bool>() ? "yes" : "no",
                       b["collectives"].get<bool>() ? "yes" : "no");
    if (b["implementations"].empty()) out += "    implementations: none\n";
    for (const auto& i : b["implementations"]) {
      std::string production;
      for (const auto& p : i["production_on"]) production += (production.empty() ? "" : ", ") + p.get<std::string>();
      out += fmt::format("    {:<40} {:<14} {}{}\n", i["key"].get<std::string>(), i["op"].get<std::string>(),
                         i["status"].get<std::string>(), production.empty() ? "" : "  (production on " + production + ")");
    }
  }
  out += "\nOps:\n";
  for (const auto& op : doc["ops"])
    out += fmt::format("  {:<15} {:<11} {}\n", op["name"].get<std::string>(), op["family"].get<std::string>(),
                       op["summary"].get<std::string>());
  out += "\nPlatforms:\n";
  for (const auto& p : doc["platforms"])
    out += fmt::format("  {:<15} backend {:<12} {}  [{}]\n", p["name"].get<std::string>(),
                       p["backend"].get<std::string>(), p["device"].get<std::string>(), p["source"].get<std::string>());
  out += fmt::format("\nUnavailable plugins ({}):\n", doc["unavailable"].size());
  if (doc["unavailable"].empty()) out += "  none\n";
  for (const auto& u : doc["unavailable"]) {
    out += fmt::format("  {}\n    {}\n", u["source"].get<std::string>(), u["reason"].get<std::string>());
    for (const auto& line : u["stderr_tail"]) out += fmt::format("      | {}\n", line.get<std::string>());
  }
  return out;
}

}  // namespace opcert
