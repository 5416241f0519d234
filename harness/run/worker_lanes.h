// The workers of one run: per backend, one lane per device it runs on (--devices), or a single
// untagged lane on its first device. A backend's lanes run side by side, each its own worker
// process pinned to its device. With --device-mode each, every lane runs every one of the
// backend's jobs, so that a bad device shows as that device's failures; with spread, the lanes
// share them, each taking the next job not yet started, so that a slow device holds up nobody.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "check/suite.h"
#include "model/case_result.h"
#include "reports/result_sink.h"
#include "run/run_settings.h"
#include "session/planning/job_list.h"
#include "session/planning/targets.h"

namespace opcert {

/// One worker's place: a target (index into the run's targets) and its device, if chosen.
struct Lane {
  std::size_t target = 0;
  std::optional<DeviceTag> device;
};

/// This process's lanes, target by target. Without --devices: one untagged lane per target. With
/// it: one lane per chosen device of each selected backend (InputError for an index a backend
/// lacks), split among the ranks of a node by local rank when `local_size` > 1; the peer (a role,
/// not certified) runs untagged on its first device: on rank 0 only with --device-mode each, on
/// every rank with spread (its jobs are spread over the ranks like the others').
std::vector<Lane> plan_lanes(const std::vector<RunTarget>& targets, const RunSettings& s, int rank, int local_rank,
                             int local_size);

/// Where a lane's events go; called from the lanes' threads.
struct LaneEvents {
  std::function<void(const CaseStart&)> started;
  std::function<void(CaseResult, bool peer)> done;
  std::function<void(const std::string&)> note;
};

/// Where a lane's worker writes its stderr: `log_dir`/<name>, named in messages as logs/<name>
/// under `shown_prefix` ("" or "rank1/").
struct LaneLogs {
  std::string log_dir;
  std::string shown_prefix;
};

/// Runs `todo` (indices into `jobs`, all of the lanes' one target) on the lanes given, each in its
/// own thread and worker, until done or a stop is asked for. With s.device_mode spread the lanes
/// take the jobs from one queue, in order; with each, every lane runs every job but those whose
/// result_identity (session/job/job_record.h) on its device is in `finished` (a resumed run's).
/// Returns false when stopped.
bool run_lanes(const std::vector<Lane>& lanes, const std::vector<RunTarget>& targets, const std::vector<Job>& jobs,
               const std::vector<std::size_t>& todo, const Suite& suite, const RunSettings& s, const LaneLogs& logs,
               const LaneEvents& events, const std::set<std::string>& finished = {});

/// How many results `lanes` (of one target) give for `todo`: each lane all of it, or, spread, once.
std::size_t lane_result_count(const std::vector<Lane>& lanes, std::size_t todo, DeviceMode mode);

}  // namespace opcert
