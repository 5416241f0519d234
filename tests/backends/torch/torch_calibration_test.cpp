// Calibration rule 1 of docs/TOLERANCES.md: torch's own native-dtype computation passes every smoke
// case of its ops with margin. Were the tolerance model tighter than what a mainstream framework
// computes, every backend would fail for the model's sake; this catches such a bound before a
// vendor does.
#include <gtest/gtest.h>

#include <string>

#include "session/execution.h"
#include "check/suite.h"
#include "loader/backend_handle.h"

extern "C" const opcert_api* opcert_torch_backend_get_api(void);

namespace opcert {
namespace {

// Rounding a correct result to the output dtype alone costs up to half an ulp, about 0.5 of the
// bound; beyond this the model leaves torch too little room.
constexpr double kMargin = 0.8;

TEST(TorchCalibration, EverySmokeCasePassesWithMargin) {
  auto backend = BackendHandle::open(opcert_torch_backend_get_api(), BackendSource{});
  const Suite suite = load_suite("smoke", 1);
  int checked = 0;
  for (const auto& impl : backend->implementations()) {
    for (const Case& c : suite.cases) {
      if (c.op != impl.op) continue;
      const CaseResult r = execute_case(*backend, impl.key, c);
      if (r.status == Status::kSkipped) {
        EXPECT_FALSE(r.message.empty()) << c.id;
        continue;
      }
      EXPECT_EQ(r.status, Status::kPassed) << impl.key << " " << c.id << ": " << r.message;
      for (const auto& m : r.metrics) EXPECT_LT(m.error_ratio, kMargin) << impl.key << " " << c.id << " output " << m.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100) << "the smoke suite should reach most of torch's implementations";
}

}  // namespace
}  // namespace opcert
