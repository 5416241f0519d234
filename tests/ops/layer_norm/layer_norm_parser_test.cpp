// layer_norm's form for the checks every operand parser passes (tests/sdk/every_parser.h): a full call
// and its parser.
#include <opcert/sdk/ops/layer_norm.h>

#include "sdk/every_parser.h"

namespace opcert::sdk::test {
namespace {

const Form kForms[] = {
    {"layer_norm",
     [] {
       TestCall c;
       c.in("x", kBf16, {3, 8}).in("weight", kBf16, {8}).in("bias", kBf16, {8}).in("residual", kBf16, {3, 8});
       c.out("y", kBf16, {3, 8}).out("residual_out", kBf16, {3, 8});
       return c;
     },
     reason_of(parse_layer_norm), {"weight", "bias", "residual", "residual_out"}},
};

INSTANTIATE_TEST_SUITE_P(LayerNorm, EveryParser, ::testing::ValuesIn(kForms), form_name);

}  // namespace
}  // namespace opcert::sdk::test
