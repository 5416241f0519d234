// rms_norm's form for the checks every operand parser passes (tests/sdk/every_parser.h): a full call
// and its parser.
#include <opcert/sdk/ops/rms_norm.h>

#include "sdk/every_parser.h"

namespace opcert::sdk::test {
namespace {

const Form kForms[] = {
    {"rms_norm",
     [] {
       TestCall c;
       c.in("x", kBf16, {3, 8}).in("weight", kBf16, {8}).in("residual", kBf16, {3, 8});
       c.out("y", kBf16, {3, 8}).out("residual_out", kBf16, {3, 8});
       return c;
     },
     reason_of(parse_rms_norm), {"weight", "residual", "residual_out"}},
};

INSTANTIATE_TEST_SUITE_P(RmsNorm, EveryParser, ::testing::ValuesIn(kForms), form_name);

}  // namespace
}  // namespace opcert::sdk::test
