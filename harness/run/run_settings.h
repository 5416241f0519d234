// What `opcert run` is told beyond what every session is (session/planning/session_settings.h).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ranks/world.h"
#include "reports/progress.h"
#include "session/planning/device_choice.h"
#include "session/planning/session_settings.h"

namespace opcert {

struct RunSettings : SessionSettings {
  std::chrono::milliseconds timeout{60000};  // per case
  ProgressMode progress = ProgressMode::kAuto;
  /// What the repro line adds after the plugin options (--platform NAME, ...).
  std::vector<std::string> repro_options;
  std::string repro_suite;                   // the suite as a repro line names it
  /// --devices: one worker per chosen device of each selected backend, in parallel, every result
  /// tagged with its device. nullopt: one worker on the backend's first device, nothing tagged.
  std::optional<DeviceChoice> devices;
  /// --device-mode: whether the chosen devices (and ranks) share the cases or each runs them all.
  /// `opcert run` defaults to spread, certify to each (docs/CLI.md, "Devices").
  DeviceMode device_mode = DeviceMode::kEach;
  /// --workers: workers per backend per device, sharing its cases; 0 is auto (run/worker_lanes.h,
  /// workers_per_place: from the host's cores).
  int workers = 0;
  /// The ranks of an MPI job that share the run (--devices under mpirun or srun): each takes its
  /// share of its node's devices (and, spread, of the cases) and rank 0 writes the outputs. Null:
  /// this process alone.
  World* world = nullptr;
  /// --resume: out_dir holds an earlier run of the same job (job.json); its results are kept and
  /// its finished jobs skipped (docs/CLI.md, "Resuming a run"). An out_dir without one starts afresh.
  bool resume = false;
  /// --profile: print where the time went, phase by phase, after the summary table.
  bool profile = false;
};

}  // namespace opcert
