// The runner <-> worker protocol: newline-delimited JSON over the worker's stdin and stdout.
//
//   worker -> runner, once at start:  {"opcert_worker":1,"backend":"cpu","cases":142}
//                          or else:   {"opcert_worker":1,"fatal":"why the worker cannot serve"}
//   runner -> worker, per job:        {"case":"softmax.f32.t4n7","impl":"cpu.softmax.rowwise"}
//   worker -> runner, during a job:   {"phase":"harness"} or {"phase":"backend"}, as a conformance
//                                     job passes from the harness's own work (inputs, reference,
//                                     check) to the backend's (its copies and its call) and back:
//                                     --timeout bounds the backend's part, not the harness's
//   worker -> runner, per job:        the CaseResult as model/case_result_json.h encodes it
//
// A bench job (`opcert bench`, bench/bench_protocol.h) adds a "bench" object to the job, and its
// answer adds a "bench" object (what was measured) beside the CaseResult's fields (its check).
//
// A line never contains a raw newline (JSON escapes it), so one line is one message.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "model/case_result.h"

namespace opcert {

inline constexpr int kWorkerProtocolVersion = 1;

/// One unit of work: run this case of the suite on this implementation.
struct JobRequest {
  std::string case_id;
  std::string impl_key;
  nlohmann::json bench;  // a bench job's own part (bench/bench_protocol.h); null for a conformance job
  bool operator==(const JobRequest&) const = default;
};

/// The worker's answer to one job: its result, and for a bench job what was measured.
struct WorkerAnswer {
  CaseResult result;
  nlohmann::json bench;  // null for a conformance job
};

/// The worker's first line: ready to serve, or why not.
struct WorkerHello {
  std::string backend;    // the backend it loaded
  int64_t cases = 0;      // cases in the suite as it loaded it (same suite and seed as the runner)
  std::string fatal;      // non-empty: the worker could not start, and this says why
  bool operator==(const WorkerHello&) const = default;
};

/// Encodings end with '\n'; decoders accept a line with or without it.
std::string encode_job(const JobRequest& job);
std::string encode_hello(const WorkerHello& hello);
std::string encode_result(const CaseResult& result);
std::string encode_answer(const WorkerAnswer& answer);

/// The line that says a job's work has passed to the backend (true) or to the harness (false).
std::string encode_phase_mark(bool backend);
/// Whether `line` is a phase mark, and which: nullopt for any other line.
std::optional<bool> decode_phase_mark(const std::string& line);

/// Each throws std::runtime_error saying what is wrong with the line.
JobRequest decode_job(const std::string& line);
WorkerHello decode_hello(const std::string& line);
CaseResult decode_result(const std::string& line);
WorkerAnswer decode_answer(const std::string& line);

}  // namespace opcert
