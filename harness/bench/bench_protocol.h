// What `opcert bench` says to its workers beyond the run protocol (session/worker/worker_protocol.h):
//
//   runner -> worker, at its start:  `opcert worker --bench JSON` (BenchWorkerSettings: the
//                                    sampling policy, --cold-l2, Google Benchmark's flags)
//   runner -> worker, per job:       the job's "bench" object (BenchRequest: a copy baseline or
//                                    the op, whose peaks apply, the peer's and the copy's latest
//                                    means for the speedup counters; or, support_only, the
//                                    question whether the job is to be timed at all)
//   worker -> runner, per job:       the answer's "bench" object (BenchMeasurement: what Google
//                                    Benchmark reported, losslessly, and how it was timed)
//
// The encodings are exact: a figure the worker measured is the figure the runner records.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/sampling_policy.h"
#include "model/bench_record.h"

namespace opcert {

/// What every job of a bench worker is timed under.
struct BenchWorkerSettings {
  SamplingPolicy sampling;
  bool cold_l2 = false;
  std::vector<std::string> benchmark_flags;  ///< Google Benchmark's own, passed through
};

/// One bench job's own part.
struct BenchRequest {
  bool copy_baseline = false;  ///< time a copy of the case's bytes, not the op (no check)
  std::string platform;        ///< the platform whose peaks give pct_peak; "" for none
  double peer_mean_s = 0.0;    ///< the peer's latest mean on the case; 0: no speedup counter
  double copy_mean_s = 0.0;    ///< the copy baseline's latest mean; 0: no pct_of_copy counter
  /// Only ask query_op and the memory admission (session/execution/memory_admission.h): the answer's
  /// measurement is checked (its result the SKIPPED or ERROR verdict) when the job is not to be
  /// timed, else unchecked with the library call the backend names.
  bool support_only = false;
};

/// What the worker measured for one bench job.
struct BenchMeasurement {
  bool checked = false;          ///< the answer's result is the job's one check
  std::string error;             ///< why it was not timed, or stopped
  std::string timing_method;     ///< "events" or "wall"; "" when nothing was timed
  std::string library_call;      ///< the call the backend says it made; "" when it does not say
  uint64_t published_bytes = 0;  ///< moved into the outputs after the launches
  double latest_mean_s = 0.0;    ///< mean seconds per launch of the last sampling
  std::vector<BenchRun> runs;    ///< what Google Benchmark reported, repetitions then aggregates
  nlohmann::json conditions;     ///< the GPU monitor's description when a CUDA device was timed; else null
};

nlohmann::json bench_worker_settings_json(const BenchWorkerSettings& s);
nlohmann::json bench_request_json(const BenchRequest& r);
nlohmann::json bench_measurement_json(const BenchMeasurement& m);

/// Each throws std::runtime_error naming the field that is missing or of the wrong type.
BenchWorkerSettings bench_worker_settings_from_json(const nlohmann::json& doc);
BenchRequest bench_request_from_json(const nlohmann::json& doc);
BenchMeasurement bench_measurement_from_json(const nlohmann::json& doc);

}  // namespace opcert
