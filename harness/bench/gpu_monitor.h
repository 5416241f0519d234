// Readings of a GPU's clocks, power draw, temperature and clock event ("throttle") reasons, taken
// around each benchmark's samples (model/measurement_conditions.h). They come from NVML, which the
// NVIDIA driver installs as libnvidia-ml.so.1: it is loaded when the first CUDA benchmark asks, so
// opcert runs, and says why there are no readings, on a machine without a driver.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/measurement_conditions.h"

namespace opcert {

class GpuMonitor {
 public:
  /// Loads and initialises NVML (OPCERT_NVML_LIBRARY names another library file); never throws:
  /// when NVML is unusable, unavailable() says why and read() gives nothing.
  GpuMonitor();
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  /// Why there are no readings ("" when NVML is usable).
  const std::string& unavailable() const { return unavailable_; }

  /// A reading of the GPU that CUDA numbers `cuda_index`, found through CUDA_VISIBLE_DEVICES
  /// (indices or GPU-/MIG- UUIDs) when it is set, else as NVML's device of the same index (NVML
  /// counts in PCI bus order: exact under CUDA_DEVICE_ORDER=PCI_BUS_ID or on a node of like GPUs).
  /// Empty when NVML is unusable or has no such device; a field NVML refuses stays empty.
  std::optional<GpuReading> read(int cuda_index);

  /// What does not change during a run, for the report: {"source": "nvml", "driver_version",
  /// "nvml_version", "devices": [{"cuda_index", "name", "uuid", "max_sm_clock_mhz",
  /// "max_memory_clock_mhz", "power_limit_w"}]} for the devices read so far, or {"source": null,
  /// "unavailable": why}.
  nlohmann::json description() const;

 private:
  struct Nvml;
  std::unique_ptr<Nvml> nvml_;
  std::string unavailable_;
  nlohmann::json devices_ = nlohmann::json::array();
};

}  // namespace opcert
