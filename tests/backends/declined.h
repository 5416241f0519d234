// What a backend answers for a call that breaks the contract of docs/OPS.md: its query declines
// (the runner records the case SKIPPED) with the SDK parser's reason, and run_op refuses it as
// UNSUPPORTED with the same reason, without computing anything.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "backends/abi_test_session.h"

namespace opcert::test::abi {

/// A query's answer: no error, unsupported, `reason` as the message.
inline void expect_declined(const Outcome& query, const std::string& reason) {
  EXPECT_EQ(query.code, OPCERT_ERROR_OK) << query.message;
  EXPECT_FALSE(query.supported) << "supported, expected declined with: " << reason;
  EXPECT_EQ(query.message, reason);
}

/// run_op's answer: UNSUPPORTED with `reason`.
inline void expect_refused_run(const Outcome& run, const std::string& reason) {
  EXPECT_EQ(run.code, OPCERT_ERROR_UNSUPPORTED) << run.message;
  EXPECT_EQ(run.message, reason);
}

}  // namespace opcert::test::abi
