// A case made ready to run on one implementation: support queried, inputs generated and copied
// into guarded device buffers, the op call bound. `opcert run` launches it once and checks it;
// `opcert bench` checks it once, then launches it again and again on the same buffers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "session/execution/case_memo.h"
#include "session/execution/device_buffer.h"
#include "session/execution/execution.h"
#include "session/execution/op_call_builder.h"
#include "loader/backend_handle.h"
#include "model/case.h"
#include "model/case_result.h"
#include "model/host_tensor.h"
#include "model/phase_times.h"

namespace opcert {

class PreparedCase {
 public:
  /// Prepares `c` for `impl_key`. When it cannot be run, returns nullptr and sets `early` to the
  /// result saying why: SKIPPED (unsupported, with the backend's reason) or ERROR. Never throws
  /// for a backend failure. `c` must outlive the returned object.
  static std::unique_ptr<PreparedCase> prepare(BackendHandle& backend, const std::string& impl_key, const Case& c,
                                               const ExecutionOptions& options, CaseResult& early);
  PreparedCase(const PreparedCase&) = delete;
  PreparedCase& operator=(const PreparedCase&) = delete;
  /// Lets the backend publish what the last launch left pending before the outputs are freed.
  ~PreparedCase();

  /// Queues the op on the device; does not wait. Throws BackendError. This is all a benchmark
  /// times: a backend may leave its results pending (ABI 1.1 publish_outputs) until check().
  void launch();

  /// Has the backend publish the last launch's pending results (untimed), waits for the device,
  /// reads the outputs back, checks the guards and compares with the reference: the case's result
  /// (PASSED, FAILED, MISTRUSTED or ERROR), with the phases timed so far. Call after a launch.
  CaseResult check();

  /// The library call the backend says this call makes, asked now (query_op; "" when it does not
  /// say or the query fails). After a launch it names what ran: a backend may learn only then that
  /// its first choice refuses the call and fall back to another.
  std::string library_call();

  /// Bytes the backend moved into the outputs after the last launch, at check(): work that lay
  /// outside the timed launch. 0 for a backend that writes its outputs in the launch.
  uint64_t published_bytes() const { return published_bytes_; }

  BackendHandle& backend() const { return *backend_; }
  opcert_device device() const { return device_; }
  const Case& test_case() const { return *case_; }
  /// Bytes of device memory the case holds (inputs and outputs, guards excluded).
  std::size_t device_bytes() const;

  /// The seconds spent so far in each phase (model/phase_times.h): generate and copy from
  /// prepare, launch (its publish and wait only: launch() itself is left to the caller to time,
  /// as bench's sampling must not pay for a clock), copy, reference and check from check().
  const PhaseTimes& phases() const { return phases_; }

 private:
  // Tells ExecutionOptions::phase_mark, if any, whose part of the case begins.
  void mark_phase(bool backend) const;

  PreparedCase(BackendHandle& backend, const std::string& impl_key, const Case& c, opcert_device device,
               const ExecutionOptions& options);
  CaseResult check_outputs();  // check() less the phases

  BackendHandle* backend_;
  std::string impl_key_;
  const Case* case_;
  opcert_device device_;
  ExecutionOptions options_;
  OpCallBuilder call_;
  CaseMemo::Inputs inputs_;  // shared with options_.memo, when there is one
  std::vector<DeviceBuffer> in_buffers_, out_buffers_;
  uint64_t published_bytes_ = 0;
  PhaseTimes phases_;
};

}  // namespace opcert
