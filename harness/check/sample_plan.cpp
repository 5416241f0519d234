#include "check/sample_plan.h"

#include <algorithm>

#include "check/philox.h"

namespace opcert {

SamplePlan make_sample_plan(const Case& c, int64_t limit) {
  SamplePlan plan;
  if (limit <= 0) return plan;
  for (const auto& out : c.outputs) {
    const int64_t n = out.numel();
    if (n <= limit) continue;
    const CounterRng rng(c.seed, c.id, "sample:" + out.name);
    std::vector<int64_t> indices{0, n - 1};
    for (int64_t i = 0; i < limit - 2; ++i)
      indices.push_back(static_cast<int64_t>(rng.uniform(static_cast<uint64_t>(i)) * static_cast<double>(n)));
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    plan[out.name] = std::move(indices);
  }
  return plan;
}

}  // namespace opcert
