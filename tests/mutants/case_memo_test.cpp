// The case memo (session/execution/case_memo.h): a case's implementations run one after the other
// share its inputs and its reference, computed once, and each is judged exactly as it is alone.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/case_result_json.h"
#include "mutants/mutation_fixture.h"
#include "reference/reference.h"
#include "session/execution/case_memo.h"
#include "session/execution/execution.h"

namespace opcert::mutation {
namespace {

Case gemm_bf16(const std::string& id) {
  Case c = make_case("gemm", {operand("a", OPCERT_DTYPE_BF16, {8, 512}), operand("b", OPCERT_DTYPE_BF16, {16, 512})},
                     {operand("c", OPCERT_DTYPE_BF16, {8, 16})});
  c.id = id;
  return c;
}

// The LibTorch reference, counting its calls.
ExecutionOptions::ReferenceSource counted_reference(int& calls) {
  return [&calls](const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
    ++calls;
    return compute_reference(c, inputs, plan);
  };
}

// What a result says, less how long it took.
nlohmann::json verdict(const CaseResult& r) {
  nlohmann::json j = to_json(r);
  j.erase("duration_ms");
  j.erase("phases");
  return j;
}

const char* const kImplementations[] = {"mutants.gemm.correct", "mutants.gemm.bf16_accumulation",
                                        "mutants.gemm.write_past_end", "mutants.gemm.correct"};

TEST(CaseMemo, ACasesImplementationsShareOneReferenceAndAreJudgedAsAlone) {
  const Case c = gemm_bf16("gemm.memo");
  int alone_calls = 0;
  ExecutionOptions alone;
  alone.reference = counted_reference(alone_calls);
  int shared_calls = 0;
  ExecutionOptions shared;
  shared.reference = counted_reference(shared_calls);
  shared.memo = std::make_shared<CaseMemo>();
  for (const char* impl : kImplementations) {
    const CaseResult by_itself = execute_case(mutants(), impl, c, alone);
    const CaseResult with_memo = execute_case(mutants(), impl, c, shared);
    EXPECT_EQ(verdict(with_memo), verdict(by_itself)) << impl;
  }
  EXPECT_EQ(alone_calls, 4);
  EXPECT_EQ(shared_calls, 1);
}

TEST(CaseMemo, AnotherCaseComputesItsOwnAndTheMemoKeepsOnlyTheLast) {
  const Case first = gemm_bf16("gemm.memo.first");
  const Case second = gemm_bf16("gemm.memo.second");
  int calls = 0;
  ExecutionOptions o;
  o.reference = counted_reference(calls);
  o.memo = std::make_shared<CaseMemo>();
  for (const Case* c : {&first, &second, &first}) {
    const CaseResult r = execute_case(mutants(), "mutants.gemm.correct", *c, o);
    EXPECT_EQ(r.status, Status::kPassed) << r.message;
  }
  EXPECT_EQ(calls, 3);
}

TEST(CaseMemo, AReferenceThatFailedIsNotKept) {
  const Case c = gemm_bf16("gemm.memo.failing");
  int calls = 0;
  ExecutionOptions o;
  o.memo = std::make_shared<CaseMemo>();
  o.reference = [&calls](const Case& cc, std::span<const HostTensor> inputs, const SamplePlan& plan) {
    if (++calls == 1) throw std::runtime_error("the first reference fails");
    return compute_reference(cc, inputs, plan);
  };
  const CaseResult failed = execute_case(mutants(), "mutants.gemm.correct", c, o);
  EXPECT_EQ(failed.status, Status::kError);
  EXPECT_NE(failed.message.find("the first reference fails"), std::string::npos) << failed.message;
  const CaseResult next = execute_case(mutants(), "mutants.gemm.correct", c, o);
  EXPECT_EQ(next.status, Status::kPassed) << next.message;
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace opcert::mutation
