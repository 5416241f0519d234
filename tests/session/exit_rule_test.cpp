// session/job/exit_rule.h: the one exit-code rule of run and bench.
#include <gtest/gtest.h>

#include "model/exit_codes.h"
#include "session/job/exit_rule.h"

namespace opcert {
namespace {

CaseResult result(const std::string& backend, Status status) {
  CaseResult r;
  r.backend = backend;
  r.status = status;
  return r;
}

TEST(ExitRule, ASelectedBackendsFailureFailsTheSessionThePeersNever) {
  const std::set<std::string> peer{"torch"};
  EXPECT_EQ(session_exit_code({result("cpu", Status::kPassed), result("cpu", Status::kSkipped)}, peer, false, false),
            kExitOk);
  for (Status bad : {Status::kFailed, Status::kError, Status::kCrashed, Status::kTimeout}) {
    EXPECT_EQ(session_exit_code({result("cpu", Status::kPassed), result("cpu", bad)}, peer, false, false),
              kExitCheckFailed)
        << status_name(bad);
    EXPECT_EQ(session_exit_code({result("cpu", Status::kPassed), result("torch", bad)}, peer, false, false), kExitOk)
        << status_name(bad);
  }
}

TEST(ExitRule, AnotherFailureFailsItAndAStopOutranksEverything) {
  EXPECT_EQ(session_exit_code({}, {}, false, true), kExitCheckFailed);
  EXPECT_EQ(session_exit_code({result("cpu", Status::kCrashed)}, {}, true, true), kExitInterrupted);
  EXPECT_EQ(session_exit_code({}, {}, false, false), kExitOk);
}

}  // namespace
}  // namespace opcert
