// Runs one case on one implementation of a loaded backend and judges it: inputs generated,
// copied to the device into buffers with guard regions, the op run and synchronised, outputs
// copied back, guards checked, the reference computed and compared.
#pragma once

#include <optional>
#include <string>

#include "loader/backend_handle.h"
#include "model/case.h"
#include "model/case_result.h"

namespace opcert {

struct ExecutionOptions {
  int device_index = 0;
  /// Tolerance overrides from the platform config (op -> dtype -> scale), applied by the bound.
  double tolerance_scale = 1.0;
};

/// Never throws for a backend failure: that becomes an ERROR result. SKIPPED when query_op
/// says the implementation does not support the case.
CaseResult execute_case(BackendHandle& backend, const std::string& impl_key, const Case& c,
                        const ExecutionOptions& options = {});

}  // namespace opcert
