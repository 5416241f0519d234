// The machine a run measured, recorded in every report (DESIGN.md section 6). Needs no CUDA or
// LibTorch: GPU facts come from nvidia-smi when it is installed, library versions from the caller.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace opcert {

/// What only the caller knows: facts of this build and of the libraries it loaded.
struct EnvironmentInputs {
  std::string opcert_version;
  std::string git_commit;
  std::string compiler;    // "" records the compiler this library was built with
  std::string build_type;  // "Release", ...; "" records null
  /// {"<library>": "<version>", ...} (the peer backend's, MPI's, CUDA's): copied as given.
  nlohmann::json libraries = nlohmann::json::object();
};

/// The environment object of report.json (reports/schema/report.schema.json, $defs/environment):
///   host, os {sysname, release, version, machine, distribution}, cpu {model, logical_cores},
///   memory_total_bytes, compiler, build_type, opcert_version, git_commit, libraries,
///   gpus [{index, name, driver_version, memory_total_mib, sm_clock_max_mhz, mem_clock_max_mhz}] or null.
/// Never throws; a fact that cannot be found is null.
nlohmann::json capture_environment(const EnvironmentInputs& inputs);

// The parsers behind capture_environment, exposed for tests.

/// The CPU's name from /proc/cpuinfo text ("model name", else "Hardware" / "cpu model" / "Processor").
std::optional<std::string> cpu_model_from_cpuinfo(const std::string& cpuinfo);
/// MemTotal from /proc/meminfo text, in bytes.
std::optional<uint64_t> memory_total_from_meminfo(const std::string& meminfo);
/// Output of `nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem
/// [,uuid,vbios_version] --format=csv,noheader` (the last two `with_identity`): one object per GPU
/// line (numbers where the text has one, else null; "[N/A]" null), or null when no line parses.
nlohmann::json gpus_from_nvidia_smi(const std::string& csv, bool with_identity = true);
/// Adds `serial` and `pci_bus_id` to each GPU of `gpus` (gpus_from_nvidia_smi's) whose uuid a line
/// of `nvidia-smi --query-gpu=uuid,serial,pci.bus_id --format=csv,noheader` names ("[N/A]": null).
void add_gpu_serials(nlohmann::json& gpus, const std::string& csv);

}  // namespace opcert
