#include "bench/bench_platform.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "bench/roofline.h"

namespace opcert {
namespace {

// The name a platform's `device` is matched against: the backend's own, and for a CUDA device the
// GPU's name from nvidia-smi too (a backend on LibTorch knows only "CUDA device 0").
std::string device_match_name(const BackendHandle& backend, const nlohmann::json& gpus) {
  const DeviceDescription& d = backend.devices().at(0);
  std::string name = d.name;
  if (d.device.type == OPCERT_DEVICE_CUDA && gpus.is_array())
    for (const auto& gpu : gpus)
      if (gpu.value("index", -1) == d.device.index && gpu.contains("name") && gpu["name"].is_string())
        name += " " + gpu["name"].get<std::string>();
  return name;
}

// The production key of each op the platform names that `backend` offers.
std::map<std::string, std::string> offered_production_keys(const PlatformConfig& platform, const BackendHandle& backend) {
  std::map<std::string, std::string> keys;
  for (const auto& [op, key] : platform.implementations)
    for (const auto& impl : backend.implementations())
      if (impl.key == key) keys[op] = key;
  return keys;
}

std::string joined(const std::set<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

const PlatformConfig* bench_platform(const BackendHandle& backend, const BenchSettings& s, const nlohmann::json& gpus) {
  return s.platforms ? platform_for_device(*s.platforms, s.platform, device_match_name(backend, gpus)) : nullptr;
}

std::string keep_production_keys(std::vector<Job>& jobs, const std::vector<RunTarget>& targets, const Suite& suite,
                                 const BenchSettings& s, const nlohmann::json& gpus) {
  std::map<std::size_t, std::map<std::string, std::string>> production;  // target index -> op -> key
  std::vector<std::string> said;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const BackendHandle& backend = *targets[t].backend;
    if (targets[t].peer || backend.name() == s.peer) continue;
    const PlatformConfig* platform = bench_platform(backend, s, gpus);
    auto keys = platform && platform->backend == backend.name() ? offered_production_keys(*platform, backend)
                                                                 : std::map<std::string, std::string>{};
    if (keys.empty()) {
      said.push_back(fmt::format("every implementation of {} ({})", backend.name(),
                                 platform ? fmt::format("platform '{}' names no production key of it", platform->name)
                                          : "no platform config matches its device"));
      continue;
    }
    std::set<std::string> timed;
    for (const Job& j : jobs)
      if (j.backend_index == t)
        if (const auto it = keys.find(suite.cases.at(j.case_index).op); it != keys.end()) timed.insert(it->second);
    said.push_back(fmt::format("the production keys of platform '{}' for {} ({})", platform->name, backend.name(),
                               timed.empty() ? "none for these ops" : joined(timed)));
    production[t] = std::move(keys);
  }
  std::erase_if(jobs, [&](const Job& j) {
    const auto p = production.find(j.backend_index);
    if (p == production.end()) return false;
    const auto key = p->second.find(suite.cases.at(j.case_index).op);
    return key != p->second.end() && key->second != j.impl_key;
  });
  std::string line = "bench times";
  for (std::size_t i = 0; i < said.size(); ++i) line += (i == 0 ? " " : "; ") + said[i];
  if (!s.peer.empty()) line += fmt::format(", and the peer {}", s.peer);
  return line + fmt::format("; --impl {} times every implementation, --impl GLOBS those it matches",
                            kEveryImplementation);
}

}  // namespace opcert
