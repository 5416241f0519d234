// rope's form for the checks every operand parser passes (tests/sdk/every_parser.h): a full call
// and its parser.
#include <opcert/sdk/ops/rope.h>

#include "sdk/every_parser.h"

namespace opcert::sdk::test {
namespace {

const Form kForms[] = {
    {"rope",
     [] {
       TestCall c;
       c.in("q", kBf16, {2, 3, 4, 8}).in("k", kBf16, {2, 3, 2, 8}).in("cos", kF32, {16, 4}).in("sin", kF32, {16, 4});
       c.in("positions", kI32, {2, 3}).out("q_out", kBf16, {2, 3, 4, 8}).out("k_out", kBf16, {2, 3, 2, 8});
       return c;
     },
     reason_of(parse_rope), {"k", "k_out", "positions"}},
};

INSTANTIATE_TEST_SUITE_P(Rope, EveryParser, ::testing::ValuesIn(kForms), form_name);

}  // namespace
}  // namespace opcert::sdk::test
