// cuda.attention.tuned's routing (backends/cuda/ops/first_taker.h), which needs no GPU: a call goes
// to the first member that takes it, library_call names that member, and a call no member takes
// is declined (and refused by run) with every member's reason.
#include <gtest/gtest.h>

#include <opcert/sdk/error.h>

#include <string>
#include <vector>

#include "ops/first_taker.h"

namespace opcert::cuda {
namespace {

// A member that takes calls with at least `min_inputs` inputs and records that it ran.
sdk::Implementation member(const std::string& key, int min_inputs, std::vector<std::string>& ran) {
  sdk::Implementation impl;
  impl.key = key;
  impl.op = "attention";
  impl.query = [key, min_inputs](const sdk::OpCall& call) {
    return call.input_count() >= min_inputs
               ? sdk::Support::yes()
               : sdk::Support::no(key + " wants " + std::to_string(min_inputs) + " inputs");
  };
  impl.run = [key, &ran](const sdk::OpCall&) { ran.push_back(key); };
  impl.library_call = [key](const sdk::OpCall&) { return key + "'s kernel"; };
  return impl;
}

// A call with `tensors` as its inputs (only their count matters to the members above).
opcert_op_call call_with_inputs(std::vector<opcert_tensor>& tensors) {
  opcert_op_call c{};
  c.struct_size = sizeof(c);
  c.inputs = tensors.data();
  c.input_count = static_cast<int32_t>(tensors.size());
  return c;
}

TEST(FirstTaker, RunsTheFirstMemberThatTakesTheCallAndNamesIt) {
  std::vector<std::string> ran;
  const sdk::Implementation tuned =
      first_taker("test.attention.tuned", "attention", "test", {member("a", 3, ran), member("b", 1, ran), member("c", 0, ran)});
  std::vector<opcert_tensor> one(1, opcert_tensor{sizeof(opcert_tensor)}), three(3, opcert_tensor{sizeof(opcert_tensor)});
  const opcert_op_call c1 = call_with_inputs(one), c3 = call_with_inputs(three);
  const sdk::OpCall call1(c1), call3(c3);
  EXPECT_TRUE(tuned.query(call1).supported);
  tuned.run(call1);
  tuned.run(call3);
  EXPECT_EQ(ran, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(tuned.library_call(call1), "b: b's kernel");
  EXPECT_EQ(tuned.library_call(call3), "a: a's kernel");
}

TEST(FirstTaker, DeclinesWithEveryMembersReasonWhenNoneTakesTheCall) {
  std::vector<std::string> ran;
  const sdk::Implementation tuned =
      first_taker("test.attention.tuned", "attention", "test", {member("a", 3, ran), member("b", 2, ran)});
  std::vector<opcert_tensor> one(1, opcert_tensor{sizeof(opcert_tensor)});
  const opcert_op_call c1 = call_with_inputs(one);
  const sdk::OpCall call1(c1);
  const sdk::Support s = tuned.query(call1);
  EXPECT_FALSE(s.supported);
  EXPECT_NE(s.reason.find("a: a wants 3 inputs"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("b: b wants 2 inputs"), std::string::npos) << s.reason;
  EXPECT_THROW(tuned.run(call1), sdk::Error);
  EXPECT_TRUE(ran.empty());
  EXPECT_EQ(tuned.library_call(call1), "");
}

}  // namespace
}  // namespace opcert::cuda
