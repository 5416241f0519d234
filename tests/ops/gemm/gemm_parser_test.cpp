// gemm's form for the checks every operand parser passes (tests/sdk/every_parser.h): a full call
// and its parser.
#include <opcert/sdk/ops/gemm.h>

#include "sdk/every_parser.h"

namespace opcert::sdk::test {
namespace {

const Form kForms[] = {
    {"gemm",
     [] {
       TestCall c;
       c.in("a", kBf16, {3, 8}).in("b", kBf16, {5, 8}).in("bias", kBf16, {5}).out("c", kBf16, {3, 5});
       return c;
     },
     reason_of(parse_gemm), {"bias"}},
};

INSTANTIATE_TEST_SUITE_P(Gemm, EveryParser, ::testing::ValuesIn(kForms), form_name);

}  // namespace
}  // namespace opcert::sdk::test
