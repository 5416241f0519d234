// `--devices all|LIST` of `opcert run` and `opcert certify` (docs/CLI.md): one worker per chosen
// device, and under an MPI launcher the ranks that share the run (each takes its node's devices,
// rank 0 writes the outputs).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>

#include "ranks/world.h"
#include "session/planning/device_choice.h"

namespace opcert {

/// Adds --devices to a verb; `text` receives its value ("" when not given).
void add_devices_flag(CLI::App& verb, std::string& text);

/// Adds --device-mode spread|each to a verb; `mode` holds its default and receives its value.
void add_device_mode_flag(CLI::App& verb, DeviceMode& mode);

/// Adds --workers N|auto to a verb: workers per backend per device, sharing its cases (run/
/// worker_lanes.h); `workers` receives N, or 0 for auto (its default).
void add_workers_flag(CLI::App& verb, int& workers);

/// What --devices makes of a run: the device choice (nullopt without the flag) and, when an MPI
/// launcher started more than one rank, the world they share (finalised on destruction).
class DeviceRun {
 public:
  /// Throws InputError for a malformed --devices, or for ranks of a launcher that this opcert
  /// cannot join (built without MPI).
  explicit DeviceRun(const std::string& text);
  ~DeviceRun();
  DeviceRun(const DeviceRun&) = delete;
  DeviceRun& operator=(const DeviceRun&) = delete;

  const std::optional<DeviceChoice>& choice() const { return choice_; }
  /// The ranks of the MPI job, or null for a run of this process alone.
  World* world() const { return world_.get(); }
  /// Rank 0, or this process alone: the one that writes.
  bool writes() const { return !world_ || world_->rank() == 0; }

  /// Every rank learns whether rank 0's checks before the run passed; a rank other than 0 throws
  /// InputError when they did not (rank 0 rethrows its own error). A no-op without ranks.
  void agree_on(std::exception_ptr rank0_error) const;

  /// Rank 0's exit code, on every rank (`code` itself without ranks): the ranks of a job end alike.
  int share_exit_code(int code) const;

 private:
  std::optional<DeviceChoice> choice_;
  std::unique_ptr<World> world_;
};

}  // namespace opcert
