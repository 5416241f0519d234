#include "session/planning/targets.h"

#include <algorithm>

namespace opcert {

std::vector<BackendPlan> backend_plans(const std::vector<RunTarget>& targets) {
  std::vector<BackendPlan> plans;
  for (const auto& t : targets) plans.push_back({t.backend->name(), t.backend->implementations(), t.peer});
  return plans;
}

BackendRecord backend_record(const RunTarget& t) {
  const BackendSource& src = t.backend->source();
  BackendRecord r;
  r.name = t.backend->name();
  r.version = t.backend->version();
  r.source = src.kind == BackendSource::Kind::kPlugin ? "plugin" : "built-in";
  r.library_path = src.library_path;
  r.sha256 = src.sha256;
  r.package = t.backend->package();
  r.peer = t.peer;
  for (const auto& impl : t.backend->implementations())
    if (std::find(r.ops.begin(), r.ops.end(), impl.op) == r.ops.end()) r.ops.push_back(impl.op);
  return r;
}

}  // namespace opcert
