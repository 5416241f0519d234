// One collective case made ready on one rank: inputs generated for this rank, placed in device
// buffers sized for the world (in place: one guarded buffer holding both views, NCCL's layout),
// the op call bound. The rank runner launches it on a communicator and checks this rank's output.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opkit/collective.h"
#include "check/collectives/rank_inputs.h"
#include "session/execution/device_buffer.h"
#include "session/execution/op_call_builder.h"
#include "loader/backend_handle.h"
#include "model/case.h"
#include "model/case_result.h"

namespace opcert {

/// Where this process stands in the job.
struct RankPlace {
  int rank = 0;
  int ranks = 1;
};

class PreparedCollective {
 public:
  /// Prepares `c` for `impl_key` on `device`. When it cannot run on this rank, returns nullptr
  /// and sets `early` (SKIPPED: unsupported, or not exact on this many ranks; ERROR otherwise).
  static std::unique_ptr<PreparedCollective> prepare(BackendHandle& backend, const std::string& impl_key, const Case& c,
                                                     opcert_device device, RankPlace place, CaseResult& early);
  PreparedCollective(const PreparedCollective&) = delete;
  PreparedCollective& operator=(const PreparedCollective&) = delete;

  /// Runs the collective on `comm` and waits for the device. Throws BackendError.
  void run(opcert_comm* comm);
  /// Starts the collective on `comm` without waiting for the device (the bench's timed batches).
  void launch(opcert_comm* comm);
  /// Reads y back, checks the guards and compares with this rank's expected output; the result
  /// carries the phases timed so far.
  CaseResult check();
  /// The seconds spent so far in each phase (model/phase_times.h): generate and copy in prepare,
  /// launch in run() (launch() alone is the bench's to time), copy, reference and check in check().
  const PhaseTimes& phases() const { return phases_; }
  /// Bytes this rank sends into the collective (x), for bandwidth figures.
  std::size_t input_bytes() const;
  const CollectiveSpec& spec() const { return spec_; }

 private:
  PreparedCollective(BackendHandle& backend, const std::string& impl_key, const Case& c, opcert_device device,
                     RankPlace place);
  CaseResult check_output();  // check() less the phases

  BackendHandle* backend_;
  std::string impl_key_;
  const Case* case_;
  Case sized_;  // c with x and y sized for the world; the call builder points into it
  CollectiveSpec spec_;
  RankPlace place_;
  opcert_device device_;
  std::unique_ptr<OpCallBuilder> call_;
  std::vector<DeviceBuffer> buffers_;  // out of place: x then y (guarded); in place: one guarded
  std::size_t y_offset_bytes_ = 0;     // where y starts in the buffer it lives in
  PhaseTimes phases_;
};

/// The status a failed collective call gives: TIMEOUT for OPCERT_ERROR_TIMEOUT, else ERROR.
Status collective_failure_status(const std::exception& e);

}  // namespace opcert
