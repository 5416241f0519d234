#include "session/execution.h"

#include <chrono>
#include <exception>

#include "session/prepared_case.h"

namespace opcert {

ExecutionOptions execution_options(const Case& c, const PlatformConfig* platform) {
  ExecutionOptions o;
  if (platform) {
    const ToleranceOverride t = platform->tolerance_for(c.op, c.dtype);
    o.bound_override.atol = t.atol;
    o.bound_override.rtol = t.rtol;
  }
  return o;
}

CaseResult execute_case(BackendHandle& backend, const std::string& impl_key, const Case& c,
                        const ExecutionOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult r;
  if (auto prepared = PreparedCase::prepare(backend, impl_key, c, options, r)) {
    try {
      prepared->launch();
      r = prepared->check();
    } catch (const std::exception& e) {
      r = blank_result(backend.name(), impl_key, c);
      r.status = Status::kError;
      r.message = e.what();
    }
  }
  r.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace opcert
