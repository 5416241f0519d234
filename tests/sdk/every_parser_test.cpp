// What every op's parser must do for every one of its operands, on a full valid call of each op
// (every optional operand given): an operand in another memory, strided, without data at run time,
// of a dtype no op takes, or left out, is refused with a reason that names it. Per-op tests check
// the shapes and attributes; this one checks that no operand escapes the common checks. Each op's
// call is its form, in its test folder (tests/ops/<op>/<op>_parser_test.cpp, every_parser.h).
#include "sdk/every_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace opcert::sdk::test {
namespace {

std::string kind_of(const TestCall& c, const std::string& name) { return c.is_input(name) ? "input" : "output"; }

TEST_P(EveryParser, TheFullCallParsesAsAQueryAndAsARun) {
  TestCall c = GetParam().call();
  EXPECT_EQ(GetParam().reason(c, false), "");
  EXPECT_EQ(GetParam().reason(c, true), "");
}

// docs/ABI.md, "Attributes": an attribute the op does not define is declined, naming it, never
// ignored; the attributes the op does define (the full call has them) all pass.
TEST_P(EveryParser, AnAttributeTheOpDoesNotDefineIsDeclinedNamingIt) {
  TestCall c = GetParam().call();
  c.attr("transpose_a", 1);
  EXPECT_NE(GetParam().reason(c, false).find("attribute 'transpose_a' is not one this op defines"), std::string::npos)
      << GetParam().reason(c, false);
  EXPECT_NE(GetParam().reason(c, true).find("'transpose_a'"), std::string::npos);
}

TEST_P(EveryParser, EachOperandInAnotherMemoryIsNamed) {
  for (const std::string& name : GetParam().call().operand_names()) {
    TestCall c = GetParam().call();
    c.select(name).on(OPCERT_DEVICE_CUDA);
    EXPECT_EQ(GetParam().reason(c, false), kind_of(c, name) + " '" + name + "' is in CUDA device memory, expected host memory");
  }
}

TEST_P(EveryParser, EachOperandWithoutDataIsNamedAtRunOnly) {
  for (const std::string& name : GetParam().call().operand_names()) {
    TestCall c = GetParam().call();
    c.select(name).without_data();
    EXPECT_EQ(GetParam().reason(c, false), "") << name << ": a query needs no data";
    EXPECT_EQ(GetParam().reason(c, true), kind_of(c, name) + " '" + name + "' has no data");
  }
}

TEST_P(EveryParser, EachStridedOperandIsNamed) {
  for (const std::string& name : GetParam().call().operand_names()) {
    TestCall c = GetParam().call();
    const std::vector<int64_t> shape = c.select(name).shape();
    if (shape.size() < 2) continue;
    std::vector<int64_t> column_major(shape.size(), 1);
    for (std::size_t i = 1; i < shape.size(); ++i) column_major[i] = column_major[i - 1] * shape[i - 1];
    c.strided(column_major);
    EXPECT_EQ(GetParam().reason(c, false),
              kind_of(c, name) + " '" + name + "' is not dense row-major (strided views are not supported)");
  }
}

TEST_P(EveryParser, EachOperandOfADtypeNoOpTakesIsNamedFirst) {
  for (const std::string& name : GetParam().call().operand_names()) {
    TestCall c = GetParam().call();
    c.select(name).as(OPCERT_DTYPE_F64);
    const std::string reason = GetParam().reason(c, false);
    EXPECT_EQ(reason.rfind(name + " ", 0), 0u) << name << ": " << reason;
    EXPECT_NE(reason.find("fp64"), std::string::npos) << name << ": " << reason;
  }
}

TEST_P(EveryParser, EachRequiredOperandLeftOutIsMissing) {
  for (const std::string& name : GetParam().call().operand_names()) {
    TestCall c = GetParam().call();
    const std::string kind = kind_of(c, name);
    c.remove(name);
    const std::string reason = GetParam().reason(c, false);
    if (GetParam().optional.contains(name)) {
      if (!reason.empty()) {
        EXPECT_NE(reason.find(name), std::string::npos) << "left out " << name << ": " << reason;
      }
    } else {
      EXPECT_EQ(reason, "missing " + kind + " '" + name + "'");
    }
  }
}

}  // namespace
}  // namespace opcert::sdk::test
