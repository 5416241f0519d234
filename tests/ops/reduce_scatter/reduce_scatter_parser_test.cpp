// reduce_scatter's form for the checks every operand parser passes (tests/sdk/every_parser.h): a full call
// and its parser.
#include <opcert/sdk/ops/collectives.h>

#include "sdk/every_parser.h"

namespace opcert::sdk::test {
namespace {

const Form kForms[] = {
    {"reduce_scatter",
     [] {
       TestCall c;
       c.in("x", OPCERT_DTYPE_I32, {10}).out("y", OPCERT_DTYPE_I32, {5});
       return c;
     },
     reason_of([](const OpCall& call, CallCheck& check) { return parse_collective(call, check, Collective::kReduceScatter, 2); }), {}},
};

INSTANTIATE_TEST_SUITE_P(ReduceScatter, EveryParser, ::testing::ValuesIn(kForms), form_name);

}  // namespace
}  // namespace opcert::sdk::test
