// What every op's operand parser must do for every one of its operands (every_parser_test.cpp),
// and the form each op gives it: a full valid call (every optional operand given) and how to read
// it. An op's form lives in its test folder, tests/ops/<op>/<op>_parser_test.cpp, found there
// (tests/ops/CMakeLists.txt) and built into sdk_test:
//
//   INSTANTIATE_TEST_SUITE_P(Softmax, EveryParser, ::testing::Values(Form{"softmax", call, reason_of(parse_softmax), {}}),
//                            form_name);
#pragma once

#include <gtest/gtest.h>
#include <opcert/sdk/call_check.h>

#include <functional>
#include <set>
#include <string>

#include "sdk/call_fixture.h"

namespace opcert::sdk::test {

inline constexpr int32_t kBf16 = OPCERT_DTYPE_BF16, kF32 = OPCERT_DTYPE_F32, kI32 = OPCERT_DTYPE_I32;

/// The reason a parser gives for a call ("" when it parses), as a query or a run.
using Reason = std::function<std::string(TestCall&, bool need_data)>;

template <class Parser>
Reason reason_of(Parser parser) {
  return [parser](TestCall& c, bool need_data) { return c.parse(parser, need_data).reason; };
}

struct Form {
  std::string name;
  std::function<TestCall()> call;  // valid, with every optional operand
  Reason reason;
  std::set<std::string> optional;  // may be left out (or leave a partner behind, which the reason names)
};

class EveryParser : public ::testing::TestWithParam<Form> {};

/// The test's name: the form's, spaces as underscores.
inline std::string form_name(const ::testing::TestParamInfo<Form>& info) {
  std::string name = info.param.name;
  for (char& ch : name)
    if (ch == ' ') ch = '_';
  return name;
}

}  // namespace opcert::sdk::test
