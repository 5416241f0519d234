#include "cli/run_settings_builder.h"

#include <fmt/format.h>

#include <filesystem>

#include "model/input_error.h"
#include "opkit/op_registry.h"
#include "session/job/run_paths.h"
#include "session/planning/job_list.h"

namespace opcert {
namespace {

constexpr std::size_t kMaxConfigBytes = 120 * 1024;

std::string absolute(const std::string& path) { return std::filesystem::absolute(path).lexically_normal().string(); }

}  // namespace

void set_worker_settings(SessionSettings& s, const CommonOptions& options, const PlatformCatalog& platforms,
                         const Registry& registry) {
  s.platform = options.platform;
  s.platforms = &platforms;
  s.command_line = current_command_line();
  s.executable = current_executable();
  for (const auto& d : options.plugin_dirs) s.worker_options.insert(s.worker_options.end(), {"--plugin-dir", absolute(d)});
  for (const auto& l : options.plugin_libraries) s.worker_options.insert(s.worker_options.end(), {"--plugin", absolute(l)});
  const auto refused = refused_step_flags(registry);  // a worker must not load what crashed the probe
  s.worker_options.insert(s.worker_options.end(), refused.begin(), refused.end());
  if (options.allow_insecure_plugins) s.worker_options.push_back("--allow-insecure-plugins");
  // Workers get the configs as read here, not their paths: a pipe or <(...) cannot be read twice,
  // and a file changed mid-run must not give the workers another platform than the report's.
  s.worker_options.push_back("--platforms-from-runner");
  for (const auto& file : platforms.merged_files()) {
    // One argument of a new process holds at most 128 KiB (Linux's MAX_ARG_STRLEN).
    if (file.text.size() > kMaxConfigBytes)
      throw InputError(fmt::format("platform config {}: {} bytes, above the {} a worker is handed; split it into files of "
                                   "fewer platforms",
                                   file.source, file.text.size(), kMaxConfigBytes));
    s.worker_options.insert(s.worker_options.end(), {"--platform-config-text", file.source + "\n" + file.text});
  }
  if (!options.platform.empty()) s.worker_options.insert(s.worker_options.end(), {"--platform", options.platform});
}

RunSettings conformance_settings(const CommonOptions& options, const PlatformCatalog& platforms, const Registry& registry) {
  RunSettings s;
  set_worker_settings(s, options, platforms, registry);
  if (options.allow_insecure_plugins) s.repro_options.push_back("--allow-insecure-plugins");
  for (const auto& f : options.platform_configs) s.repro_options.insert(s.repro_options.end(), {"--platform-config", absolute(f)});
  if (!options.platform.empty()) s.repro_options.insert(s.repro_options.end(), {"--platform", options.platform});
  return s;
}

CaseFamilies case_families(const Suite& suite, const std::string& filter) {
  CaseFamilies f;
  for (std::size_t i : filter_cases(suite.cases, filter)) (is_collective_op(suite.cases[i].op) ? f.collectives : f.compute) += 1;
  return f;
}

std::string suite_for_repro(const std::string& asked, const Suite& suite) {
  const bool is_file = asked.find('/') != std::string::npos || asked.ends_with(".json");
  return is_file ? std::filesystem::absolute(suite.path).lexically_normal().string() : asked;
}

}  // namespace opcert
