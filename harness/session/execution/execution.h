// Runs one case on one implementation of a loaded backend and judges it: inputs generated,
// copied to the device into buffers with guard regions, the op run and synchronised, outputs
// copied back, guards checked, the reference computed and compared.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "check/tolerance.h"
#include "session/execution/case_memo.h"
#include "session/execution/input_cache.h"
#include "loader/backend_handle.h"
#include "loader/platform/platform_config.h"
#include "model/case.h"
#include "model/case_result.h"
#include "model/host_tensor.h"
#include "opkit/reference_output.h"

namespace opcert {

struct ExecutionOptions {
  int device_index = 0;
  /// The platform config's override for this case's op and dtype, if any.
  BoundOverride bound_override;
  /// Where the golden reference comes from: empty for compute_reference (LibTorch, fp64), else
  /// this, e.g. a golden set's stored reference (`opcert run --golden`, golden/golden_set.h).
  using ReferenceSource =
      std::function<std::vector<ReferenceOutput>(const Case&, std::span<const HostTensor>, const SamplePlan&)>;
  ReferenceSource reference;
  /// --max-memory: the most a case may need of the host's memory (and the device's); 0 for no cap
  /// beyond what the host has available and the device holds (session/execution/memory_admission.h).
  uint64_t max_memory = 0;
  /// Where the inputs and the reference of the last case are kept for the next implementation of
  /// the same case (case_memo.h); none: each job generates and computes its own.
  std::shared_ptr<CaseMemo> memo;
  /// Where big cases' inputs are shared between the run's workers (input_cache.h); an empty
  /// folder: each generates its own.
  InputCache input_cache;
  /// Told as the case passes from the harness's own work (the inputs, the reference, the check:
  /// false) to the backend's (its copies and its call: true) and back, so that a worker's runner
  /// bounds each part with its own limit (session/worker/worker_protocol.h); none: not told.
  std::function<void(bool backend)> phase_mark;
};

/// The options of case `c` under `platform` (may be null): its tolerance override for the case's
/// op and declared dtype.
ExecutionOptions execution_options(const Case& c, const PlatformConfig* platform);

/// Never throws for a backend failure: that becomes an ERROR result. SKIPPED when query_op
/// says the implementation does not support the case.
CaseResult execute_case(BackendHandle& backend, const std::string& impl_key, const Case& c,
                        const ExecutionOptions& options = {});

}  // namespace opcert
