#include "bench/gpu_monitor.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace opcert {

// The slice of NVML's C API that opcert calls, declared from NVML's reference (nvml.h is not in
// every toolkit install; these entry points and values are stable across drivers). The types are
// outside the anonymous namespace: GpuMonitor::Nvml, a member of a named class, holds them.
using NvmlReturn = int;  // nvmlReturn_t
using NvmlDevice = struct NvmlDeviceOpaque*;  // nvmlDevice_t

namespace {

constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kClockSm = 1;   // NVML_CLOCK_SM
constexpr int kClockMem = 2;  // NVML_CLOCK_MEM
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr unsigned kTextLength = 96;

void* symbol(void* library, const char* name) { return library != nullptr ? dlsym(library, name) : nullptr; }

}  // namespace

struct GpuMonitor::Nvml {
  void* library = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned) = nullptr;
  NvmlReturn (*nvml_version)(char*, unsigned) = nullptr;
  NvmlReturn (*by_index)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*by_uuid)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*name)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*max_clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*power)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*power_limit)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*clock_reasons)(NvmlDevice, unsigned long long*) = nullptr;
  bool initialised = false;

  std::string error(NvmlReturn code) const {
    const char* text = error_string != nullptr ? error_string(code) : nullptr;
    return text != nullptr ? text : fmt::format("NVML error {}", code);
  }

  // Binds every entry point; returns the first one missing, "" when all are there.
  std::string bind() {
    const auto bind_one = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(symbol(library, name));
      return fn != nullptr;
    };
    // Drivers since 530 name the reasons "clock events"; older ones only "throttle reasons".
    if (!bind_one(clock_reasons, "nvmlDeviceGetCurrentClocksEventReasons") &&
        !bind_one(clock_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons"))
      return "nvmlDeviceGetCurrentClocksEventReasons";
    const std::pair<const char*, bool> bound[] = {
        {"nvmlInit_v2", bind_one(init, "nvmlInit_v2")},
        {"nvmlShutdown", bind_one(shutdown, "nvmlShutdown")},
        {"nvmlErrorString", bind_one(error_string, "nvmlErrorString")},
        {"nvmlSystemGetDriverVersion", bind_one(driver_version, "nvmlSystemGetDriverVersion")},
        {"nvmlSystemGetNVMLVersion", bind_one(nvml_version, "nvmlSystemGetNVMLVersion")},
        {"nvmlDeviceGetHandleByIndex_v2", bind_one(by_index, "nvmlDeviceGetHandleByIndex_v2")},
        {"nvmlDeviceGetHandleByUUID", bind_one(by_uuid, "nvmlDeviceGetHandleByUUID")},
        {"nvmlDeviceGetName", bind_one(name, "nvmlDeviceGetName")},
        {"nvmlDeviceGetUUID", bind_one(uuid, "nvmlDeviceGetUUID")},
        {"nvmlDeviceGetClockInfo", bind_one(clock, "nvmlDeviceGetClockInfo")},
        {"nvmlDeviceGetMaxClockInfo", bind_one(max_clock, "nvmlDeviceGetMaxClockInfo")},
        {"nvmlDeviceGetPowerUsage", bind_one(power, "nvmlDeviceGetPowerUsage")},
        {"nvmlDeviceGetEnforcedPowerLimit", bind_one(power_limit, "nvmlDeviceGetEnforcedPowerLimit")},
        {"nvmlDeviceGetTemperature", bind_one(temperature, "nvmlDeviceGetTemperature")},
    };
    for (const auto& [name_of, ok] : bound)
      if (!ok) return name_of;
    return "";
  }

  std::string text(NvmlReturn (*fn)(char*, unsigned)) const {
    char buffer[kTextLength] = {};
    return fn(buffer, kTextLength) == kNvmlSuccess ? std::string(buffer) : std::string();
  }

  std::string device_text(NvmlReturn (*fn)(NvmlDevice, char*, unsigned), NvmlDevice device) const {
    char buffer[kTextLength] = {};
    return fn(device, buffer, kTextLength) == kNvmlSuccess ? std::string(buffer) : std::string();
  }

  std::optional<unsigned> value(NvmlReturn (*fn)(NvmlDevice, int, unsigned*), NvmlDevice device, int which) const {
    unsigned v = 0;
    if (fn(device, which, &v) != kNvmlSuccess) return std::nullopt;
    return v;
  }

  std::optional<unsigned> value(NvmlReturn (*fn)(NvmlDevice, unsigned*), NvmlDevice device) const {
    unsigned v = 0;
    if (fn(device, &v) != kNvmlSuccess) return std::nullopt;
    return v;
  }
};

namespace {

// The CUDA_VISIBLE_DEVICES entry that CUDA numbers `cuda_index`, or "" when the variable is unset.
std::string visible_device_entry(int cuda_index) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr) return "";
  std::stringstream list(visible);
  std::string entry;
  for (int i = 0; std::getline(list, entry, ','); ++i)
    if (i == cuda_index) return entry;
  return "?";  // CUDA has no such device
}

}  // namespace

GpuMonitor::GpuMonitor() : nvml_(std::make_unique<Nvml>()) {
  const char* path = std::getenv("OPCERT_NVML_LIBRARY");
  const std::string file = path != nullptr && *path != '\0' ? path : "libnvidia-ml.so.1";
  nvml_->library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (nvml_->library == nullptr) {
    const char* why = dlerror();
    unavailable_ = fmt::format("NVML not loaded ({}): no NVIDIA driver here", why != nullptr ? why : file);
    return;
  }
  if (const std::string missing = nvml_->bind(); !missing.empty()) {
    unavailable_ = fmt::format("{} has no {}: a driver too old for opcert's readings", file, missing);
    return;
  }
  if (const NvmlReturn r = nvml_->init(); r != kNvmlSuccess) {
    unavailable_ = fmt::format("nvmlInit failed: {}", nvml_->error(r));
    return;
  }
  nvml_->initialised = true;
}

GpuMonitor::~GpuMonitor() {
  if (nvml_->initialised) nvml_->shutdown();
  if (nvml_->library != nullptr) dlclose(nvml_->library);
}

std::optional<GpuReading> GpuMonitor::read(int cuda_index) {
  if (!unavailable_.empty() || cuda_index < 0) return std::nullopt;
  const std::string entry = visible_device_entry(cuda_index);
  NvmlDevice device = nullptr;
  NvmlReturn found = 1;
  if (entry.rfind("GPU-", 0) == 0 || entry.rfind("MIG-", 0) == 0)
    found = nvml_->by_uuid(entry.c_str(), &device);
  else if (entry.empty())
    found = nvml_->by_index(static_cast<unsigned>(cuda_index), &device);
  else if (entry.find_first_not_of("0123456789") == std::string::npos)
    found = nvml_->by_index(static_cast<unsigned>(std::stoul(entry)), &device);
  if (found != kNvmlSuccess) return std::nullopt;

  GpuReading r;
  r.sm_clock_mhz = nvml_->value(nvml_->clock, device, kClockSm);
  r.memory_clock_mhz = nvml_->value(nvml_->clock, device, kClockMem);
  if (const auto mw = nvml_->value(nvml_->power, device)) r.power_w = *mw / 1000.0;
  r.temperature_c = nvml_->value(nvml_->temperature, device, kTemperatureGpu);
  unsigned long long reasons = 0;
  if (nvml_->clock_reasons(device, &reasons) == kNvmlSuccess) r.clock_reasons = reasons;

  const bool described = std::any_of(devices_.begin(), devices_.end(),
                                     [&](const nlohmann::json& d) { return d.value("cuda_index", -1) == cuda_index; });
  if (!described) {
    const auto number = [](const std::optional<unsigned>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    const auto limit = nvml_->value(nvml_->power_limit, device);
    devices_.push_back({{"cuda_index", cuda_index},
                        {"name", nvml_->device_text(nvml_->name, device)},
                        {"uuid", nvml_->device_text(nvml_->uuid, device)},
                        {"max_sm_clock_mhz", number(nvml_->value(nvml_->max_clock, device, kClockSm))},
                        {"max_memory_clock_mhz", number(nvml_->value(nvml_->max_clock, device, kClockMem))},
                        {"power_limit_w", limit ? nlohmann::json(*limit / 1000.0) : nlohmann::json(nullptr)}});
  }
  return r;
}

nlohmann::json GpuMonitor::description() const {
  if (!unavailable_.empty()) return {{"source", nullptr}, {"unavailable", unavailable_}};
  return {{"source", "nvml"},
          {"driver_version", nvml_->text(nvml_->driver_version)},
          {"nvml_version", nvml_->text(nvml_->nvml_version)},
          {"devices", devices_}};
}

}  // namespace opcert
