// The workers of one run: per backend, --workers lanes per device it runs on (--devices), or on
// its first device, untagged. Every lane of every backend runs side by side, each its own worker
// process pinned to its device. With --device-mode each, every device runs every one of the
// backend's jobs (its lanes share them), so that a bad device shows as that device's failures;
// with spread, all of a backend's lanes share them, each taking the next case not yet started
// (run/case_queue.h), so that a slow device holds up nobody. Memory gates (run/memory_gate.h)
// keep the cases that run at once within the host's and each device's memory.
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
#include "run/lane.h"
#include "run/run_settings.h"
#include "session/planning/job_list.h"
#include "session/planning/targets.h"

namespace opcert {


/// How many workers each backend gets per device: `asked` (--workers) when above 0; else (auto)
/// one per two of the cores this process has (`cores` over the `local_size` ranks of its node)
/// for each of `places` (a backend on a device), at least 1 and at most 4.
int workers_per_place(int asked, std::size_t places, unsigned cores, int local_size);

/// This process's lanes, target by target. Without --devices: workers_per_place untagged lanes
/// per target. With it: that many per chosen device of each selected backend (InputError for an
/// index a backend lacks), the devices split among the ranks of a node by local rank when
/// `local_size` > 1; the peer (a role, not certified) runs untagged on its first device: on rank 0
/// only with --device-mode each, on every rank with spread (its jobs are spread over the ranks like
/// the others').
std::vector<Lane> plan_lanes(const std::vector<RunTarget>& targets, const RunSettings& s, int rank, int local_rank,
                             int local_size, unsigned cores);

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

/// Runs `todo[t]` (indices into `jobs` of target t's jobs) on the lanes given, all of them side by
/// side, each in its own thread and worker, until done or a stop is asked for. With
/// s.device_mode spread a target's lanes take its jobs from one queue, a case at a time; with
/// each, every device's lanes share all of them but those whose result_identity (session/job/
/// job_record.h) on that device is in `finished` (a resumed run's). Returns false when stopped.
bool run_lanes(const std::vector<Lane>& lanes, const std::vector<RunTarget>& targets, const std::vector<Job>& jobs,
               const std::vector<std::vector<std::size_t>>& todo, const Suite& suite, const RunSettings& s,
               const LaneLogs& logs, const LaneEvents& events, const std::set<std::string>& finished = {});

/// How many results `lanes` (of one target) give for `todo`: each device all of it, or, spread, once.
std::size_t lane_result_count(const std::vector<Lane>& lanes, std::size_t todo, DeviceMode mode);

}  // namespace opcert
