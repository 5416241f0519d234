#include "session/execution/execution.h"

#include <chrono>
#include <exception>

#include "session/execution/prepared_case.h"

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
  double launch_seconds = 0.0;  // the call itself: PreparedCase times only its publish and wait
  if (auto prepared = PreparedCase::prepare(backend, impl_key, c, options, r)) {
    try {
      {
        const PhaseTimer timer(launch_seconds);
        prepared->launch();
      }
      r = prepared->check();
    } catch (const std::exception& e) {
      r = blank_result(backend.name(), impl_key, c);
      r.status = Status::kError;
      r.message = e.what();
    }
    r.phases = prepared->phases();
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  r.duration_ms = std::chrono::duration<double, std::milli>(elapsed).count();
  PhaseTimes& phases = r.phases ? *r.phases : r.phases.emplace();
  phases.launch += launch_seconds;
  phases.worker = std::chrono::duration<double>(elapsed).count();  // the worker loop widens it to the whole job
  return r;
}

}  // namespace opcert
