// softmax's form for the checks every operand parser passes (tests/sdk/every_parser.h): a full call
// and its parser.
#include <opcert/sdk/ops/softmax.h>

#include "sdk/every_parser.h"

namespace opcert::sdk::test {
namespace {

const Form kForms[] = {
    {"softmax",
     [] {
       TestCall c;
       c.in("x", kBf16, {3, 8}).out("y", kBf16, {3, 8});
       return c;
     },
     reason_of(parse_softmax), {}},
};

INSTANTIATE_TEST_SUITE_P(Softmax, EveryParser, ::testing::ValuesIn(kForms), form_name);

}  // namespace
}  // namespace opcert::sdk::test
