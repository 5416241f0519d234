#include "reports/environment.h"
#include "reports/json_values.h"
#include "model/text_file.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <sstream>
#include <thread>
#include <vector>

namespace opcert {
namespace {

using nlohmann::json;

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

// "key<spaces>: value" lines, as in /proc/cpuinfo, /proc/meminfo.
std::optional<std::string> colon_field(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || trim(line.substr(0, colon)) != key) continue;
    const auto value = trim(line.substr(colon + 1));
    if (!value.empty()) return value;
  }
  return std::nullopt;
}

// "os-release" style KEY="value" lines.
std::optional<std::string> os_release_field(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(key + "=", 0) != 0) continue;
    auto value = trim(line.substr(key.size() + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    return value;
  }
  return std::nullopt;
}

// The leading unsigned integer of "81559 MiB", or null for "[N/A]" and the like.
json leading_integer(const std::string& text) {
  const auto s = trim(text);
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0 || digits > 18) return nullptr;
  return std::stoull(s.substr(0, digits));
}


// Runs a shell command and returns its standard output. The exit status is not trusted: a
// runner's SIGCHLD reaper may take it first; the parsers reject what is not the expected output.
std::optional<std::string> command_output(const char* command) {
  std::FILE* pipe = ::popen(command, "r");
  if (pipe == nullptr) return std::nullopt;
  std::string out;
  std::array<char, 4096> buffer{};
  for (size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) out.append(buffer.data(), n);
  ::pclose(pipe);
  return out;
}

json host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return nullptr;
  return std::string(name.data());
}

json os_facts() {
  json os = {{"sysname", nullptr}, {"release", nullptr}, {"version", nullptr}, {"machine", nullptr},
             {"distribution", nullptr}};
  struct utsname u {};
  if (::uname(&u) == 0) {
    os["sysname"] = u.sysname;
    os["release"] = u.release;
    os["version"] = u.version;
    os["machine"] = u.machine;
  }
  if (const auto text = read_text_file("/etc/os-release")) os["distribution"] = string_or_null(os_release_field(*text, "PRETTY_NAME"));
  return os;
}

json cpu_facts() {
  json cpu = {{"model", nullptr}, {"logical_cores", nullptr}};
  if (const auto text = read_text_file("/proc/cpuinfo")) cpu["model"] = string_or_null(cpu_model_from_cpuinfo(*text));
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (online > 0)
    cpu["logical_cores"] = online;
  else if (const unsigned n = std::thread::hardware_concurrency(); n > 0)
    cpu["logical_cores"] = n;
  return cpu;
}

json memory_total() {
  if (const auto text = read_text_file("/proc/meminfo"))
    if (const auto bytes = memory_total_from_meminfo(*text)) return *bytes;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
  return nullptr;
}

json gpu_facts() {
  // `timeout` bounds a wedged driver; without it (not POSIX) nvidia-smi runs unbounded. A driver
  // that does not know a field refuses the whole query: then without the UUID and firmware.
  static constexpr const char* kCommand =
      "command -v nvidia-smi >/dev/null 2>&1 || exit 127; "
      "T=; command -v timeout >/dev/null 2>&1 && T='timeout 20'; "
      "$T nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,uuid,vbios_version "
      "--format=csv,noheader 2>/dev/null";
  static constexpr const char* kPlainCommand =
      "command -v nvidia-smi >/dev/null 2>&1 || exit 127; "
      "T=; command -v timeout >/dev/null 2>&1 && T='timeout 20'; "
      "$T nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem "
      "--format=csv,noheader 2>/dev/null";
  // The serial number and PCI bus id (NVML's nvmlDeviceGetSerial and PCI info) by UUID, in a query of
  // their own: a GPU or driver that refuses them keeps the rest.
  static constexpr const char* kSerialCommand =
      "command -v nvidia-smi >/dev/null 2>&1 || exit 127; "
      "T=; command -v timeout >/dev/null 2>&1 && T='timeout 20'; "
      "$T nvidia-smi --query-gpu=uuid,serial,pci.bus_id --format=csv,noheader 2>/dev/null";
  if (const auto out = command_output(kCommand))
    if (json gpus = gpus_from_nvidia_smi(*out, true); !gpus.is_null()) {
      if (const auto serials = command_output(kSerialCommand)) add_gpu_serials(gpus, *serials);
      return gpus;
    }
  const auto out = command_output(kPlainCommand);
  return out ? gpus_from_nvidia_smi(*out, false) : json(nullptr);
}

std::string built_with_compiler() {
#if defined(__clang__)
  return "Clang " __clang_version__;
#elif defined(__GNUC__)
  return "GNU " __VERSION__;
#else
  return "";
#endif
}

}  // namespace

std::optional<std::string> cpu_model_from_cpuinfo(const std::string& cpuinfo) {
  for (const char* key : {"model name", "Hardware", "cpu model", "Processor", "cpu"})
    if (auto value = colon_field(cpuinfo, key)) return value;
  return std::nullopt;
}

std::optional<uint64_t> memory_total_from_meminfo(const std::string& meminfo) {
  const auto value = colon_field(meminfo, "MemTotal");
  if (!value) return std::nullopt;
  const json kib = leading_integer(*value);
  if (kib.is_null()) return std::nullopt;
  const bool in_kib = value->find("kB") != std::string::npos;
  return kib.get<uint64_t>() * (in_kib ? 1024u : 1u);
}

namespace {

// nvidia-smi says "[N/A]" for a field a GPU does not report.
json smi_text_or_null(const std::string& v) { return v.empty() || v == "[N/A]" || v == "N/A" ? json(nullptr) : json(v); }

}  // namespace

json gpus_from_nvidia_smi(const std::string& csv, bool with_identity) {
  const auto text_or_null = smi_text_or_null;
  json gpus = json::array();
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(trim(cell));
    const size_t others = with_identity ? 6 : 4;  // the fields after the name
    if (fields.size() < others + 1) continue;
    // A comma inside the name would split it: the last fields are always the others.
    std::string name = fields[0];
    for (size_t i = 1; i + others < fields.size(); ++i) name += "," + fields[i];
    const size_t n = fields.size(), at = n - others;
    json gpu = {{"index", gpus.size()},
                {"name", name},
                {"driver_version", string_or_null(fields[at])},
                {"memory_total_mib", leading_integer(fields[at + 1])},
                {"sm_clock_max_mhz", leading_integer(fields[at + 2])},
                {"mem_clock_max_mhz", leading_integer(fields[at + 3])}};
    if (with_identity) {
      gpu["uuid"] = text_or_null(fields[at + 4]);
      gpu["vbios_version"] = text_or_null(fields[at + 5]);
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus.empty() ? json(nullptr) : gpus;
}

void add_gpu_serials(json& gpus, const std::string& csv) {
  if (!gpus.is_array()) return;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(trim(cell));
    if (fields.size() != 3 || smi_text_or_null(fields[0]).is_null()) continue;
    for (auto& gpu : gpus)
      if (gpu.is_object() && gpu.value("uuid", json(nullptr)) == json(fields[0])) {
        gpu["serial"] = smi_text_or_null(fields[1]);
        gpu["pci_bus_id"] = smi_text_or_null(fields[2]);
      }
  }
}

// The NCCL this process runs its collectives on, if a backend loaded one: "2.27.3 (<path>)". Asked
// of the library already in the process (RTLD_NOLOAD), never loading one; every backend of the
// process that uses NCCL shares that one copy (one soname), the peer's included.
json loaded_nccl() {
  void* lib = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD);
  if (lib == nullptr) return nullptr;
  json version = nullptr;
  using GetVersion = int (*)(int*);
  if (auto get = reinterpret_cast<GetVersion>(dlsym(lib, "ncclGetVersion"))) {
    int code = 0;
    if (get(&code) == 0 && code > 0) {
      std::string text = std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
                         std::to_string(code % 100);
      const link_map* map = nullptr;
      if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr && *map->l_name)
        text += std::string(" (") + map->l_name + ")";
      version = text;
    }
  }
  dlclose(lib);
  return version;
}

json capture_environment(const EnvironmentInputs& inputs) {
  json env = {{"host", nullptr},
              {"os", nullptr},
              {"cpu", nullptr},
              {"memory_total_bytes", nullptr},
              {"compiler", string_or_null(inputs.compiler.empty() ? built_with_compiler() : inputs.compiler)},
              {"build_type", string_or_null(inputs.build_type)},
              {"opcert_version", string_or_null(inputs.opcert_version)},
              {"git_commit", string_or_null(inputs.git_commit)},
              {"libraries", inputs.libraries.is_object() ? inputs.libraries : json::object()},
              {"gpus", nullptr}};
  // Each probe on its own: one that fails leaves its fact null and the others standing.
  const auto probe = [&env](const char* key, json (*capture)()) {
    try {
      env[key] = capture();
    } catch (...) {
      env[key] = nullptr;
    }
  };
  probe("host", host_name);
  probe("os", os_facts);
  probe("cpu", cpu_facts);
  probe("memory_total_bytes", memory_total);
  probe("gpus", gpu_facts);
  if (!env["libraries"].contains("nccl"))
    if (json nccl = loaded_nccl(); !nccl.is_null()) env["libraries"]["nccl"] = std::move(nccl);
  return env;
}

}  // namespace opcert
