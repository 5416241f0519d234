// `opcert bench --devices` (docs/CLI.md "Devices"): where a bench's jobs are timed. A lane is one
// device index, with one worker per backend on it (bench/bench_workers.h); without --devices, a
// single untagged lane on each backend's first device. A lane takes a case at a time, a unit: every
// selected implementation of it, its copy baselines and the peer's job, back to back on the lane's
// device, so that every speedup compares two figures of one device. With --device-mode spread the
// lanes take the units from one queue (each case timed once, on whichever device took it); with
// each, every lane times every case.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "bench/bench_job.h"
#include "bench/bench_settings.h"
#include "bench/bench_workers.h"
#include "session/planning/targets.h"

namespace opcert {

/// The device indices of a bench, one lane each; {nullopt} without --devices. 'all' is every
/// index all the targets have (the peer's too: it is timed on each lane's device). Throws
/// InputError, before any worker starts, for an index a target lacks, naming it and its devices.
std::vector<std::optional<int>> bench_lane_devices(const std::vector<RunTarget>& targets, const BenchSettings& s);

/// With --device-mode each and more than one lane: `jobs` once per lane, each copy tagged with its
/// lane's device and linked to its own peer's and copy's jobs. Otherwise `jobs` as they are (spread
/// tags a job when a lane takes it).
std::vector<BenchJob> place_bench_jobs(std::vector<BenchJob> jobs, const std::vector<std::optional<int>>& lanes,
                                       DeviceMode mode);

/// A unit of work a lane takes: jobs [first, end), one case on one device (or any, spread).
struct BenchUnit {
  std::size_t first = 0;
  std::size_t end = 0;
  std::optional<int> device;  ///< each: the lane that times it; nullopt: any lane
};

/// `jobs` (placed) cut into units: each run of consecutive jobs of one case and device.
std::vector<BenchUnit> bench_units(const std::vector<BenchJob>& jobs);

/// Times every job of `units` not yet `held`, each lane (workers[k] on lanes[k]) in its own thread:
/// spread, each lane takes the next unit not yet started and tags its jobs with its device; each,
/// a lane times the units of its device. `measured(i)` is called for each job timed, one call at a
/// time, after held[i] is set. False when a stop was asked for (SIGINT, SIGTERM).
bool time_units(std::vector<BenchJob>& jobs, const std::vector<BenchUnit>& units, std::vector<char>& held,
                const std::vector<std::optional<int>>& lanes, const std::vector<std::unique_ptr<BenchWorkers>>& workers,
                const std::function<void(std::size_t)>& measured);

}  // namespace opcert
