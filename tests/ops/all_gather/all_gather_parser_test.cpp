// all_gather's form for the checks every operand parser passes (tests/sdk/every_parser.h): a full call
// and its parser.
#include <opcert/sdk/ops/collectives.h>

#include "sdk/every_parser.h"

namespace opcert::sdk::test {
namespace {

const Form kForms[] = {
    {"all_gather",
     [] {
       TestCall c;
       c.in("x", kF32, {5}).out("y", kF32, {10});
       return c;
     },
     reason_of([](const OpCall& call, CallCheck& check) { return parse_collective(call, check, Collective::kAllGather, 2); }), {}},
};

INSTANTIATE_TEST_SUITE_P(AllGather, EveryParser, ::testing::ValuesIn(kForms), form_name);

}  // namespace
}  // namespace opcert::sdk::test
