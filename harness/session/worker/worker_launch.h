// How a verb starts the worker of one backend (on one device): `opcert worker` with the options
// that make it load what the runner loaded, the suite and seed, its device, and its log file.
// `opcert run` (run/worker_lanes.h) and `opcert bench` (bench/bench_runner.h) start theirs alike.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "check/suite.h"
#include "model/device_tag.h"
#include "session/planning/session_settings.h"
#include "session/worker/worker_session.h"

namespace opcert {

/// The worker's log file name: "<backend>.worker.log", or "<backend>.device<i>.worker.log"; the
/// second and later workers of one backend on one device (`slot` > 0, run's --workers) add theirs:
/// "<backend>.worker<slot>.log", "<backend>.device<i>.worker<slot>.log".
std::string worker_log_file(const std::string& backend, const std::optional<DeviceTag>& device, int slot = 0);

/// The launch of `backend`'s worker on `device` (none: its first device, results untagged), its
/// stderr in `log_dir`/worker_log_file, named in messages as logs/`shown_prefix`<file>. It may
/// take `startup_timeout` to be ready (the backend loaded, the suite read). `slot`: which of the
/// backend's workers on that device it is (its log file's name).
WorkerLaunch worker_launch(const std::string& backend, const std::optional<DeviceTag>& device, const Suite& suite,
                           const SessionSettings& s, const std::string& log_dir, const std::string& shown_prefix,
                           std::chrono::milliseconds startup_timeout, int slot = 0);

}  // namespace opcert
