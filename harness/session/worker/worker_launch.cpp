#include "session/worker/worker_launch.h"

#include <fmt/format.h>

#include <filesystem>

#include "session/job/run_paths.h"
#include "session/planning/device_choice.h"

namespace opcert {

std::string worker_log_file(const std::string& backend, const std::optional<DeviceTag>& device, int slot) {
  const std::string worker = slot > 0 ? fmt::format("worker{}", slot) : "worker";
  return device ? fmt::format("{}.device{}.{}.log", file_safe(backend), device->index, worker)
                : fmt::format("{}.{}.log", file_safe(backend), worker);
}

WorkerLaunch worker_launch(const std::string& backend, const std::optional<DeviceTag>& device, const Suite& suite,
                           const SessionSettings& s, const std::string& log_dir, const std::string& shown_prefix,
                           std::chrono::milliseconds startup_timeout, int slot) {
  WorkerLaunch launch;
  launch.executable = s.executable;
  launch.backend = backend;
  launch.args = {"worker", "--backend", backend};
  launch.args.insert(launch.args.end(), s.worker_options.begin(), s.worker_options.end());
  launch.args.insert(launch.args.end(), {"--suite", suite.name, "--seed", std::to_string(s.seed)});
  if (device) {
    // Pinned twice over: the harness runs every case on this device, and a backend that serves one
    // device per process (CUDA, the CPU backend's partitions) sets itself up for it (docs/ABI.md).
    launch.args.insert(launch.args.end(), {"--device", std::to_string(device->index)});
    launch.environment.push_back(fmt::format("{}={}", kDeviceEnvironmentVariable, device->index));
    launch.device = device;
  }
  const std::string file = worker_log_file(backend, device, slot);
  launch.log_name = "logs/" + shown_prefix + file;
  launch.log_path = (std::filesystem::path(log_dir) / file).string();
  launch.expected_cases = suite.cases.size();
  launch.startup_timeout = startup_timeout;
  return launch;
}

}  // namespace opcert
