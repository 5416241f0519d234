// quantize's form for the checks every operand parser passes (tests/sdk/every_parser.h): a full call
// and its parser.
#include <opcert/sdk/ops/quantize.h>

#include "sdk/every_parser.h"

namespace opcert::sdk::test {
namespace {

const Form kForms[] = {
    {"quantize",
     [] {
       TestCall c;
       c.in("x", kBf16, {3, 8}).out("q", OPCERT_DTYPE_I8, {3, 8}).out("scale", kF32, {3});
       return c;
     },
     reason_of(parse_quantize), {}},
};

INSTANTIATE_TEST_SUITE_P(Quantize, EveryParser, ::testing::ValuesIn(kForms), form_name);

}  // namespace
}  // namespace opcert::sdk::test
