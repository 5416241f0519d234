// gemm_int8's form for the checks every operand parser passes (tests/sdk/every_parser.h): a full call
// and its parser.
#include <opcert/sdk/ops/gemm_int8.h>

#include "sdk/every_parser.h"

namespace opcert::sdk::test {
namespace {

const Form kForms[] = {
    {"gemm_int8",
     [] {
       TestCall c;
       c.in("a", OPCERT_DTYPE_I8, {3, 8}).in("b", OPCERT_DTYPE_I8, {5, 8}).in("a_scale", kF32, {3});
       c.in("b_scale", kF32, {5}).in("bias", kBf16, {5}).out("c", kBf16, {3, 5});
       return c;
     },
     reason_of(parse_gemm_int8), {"bias"}},
};

INSTANTIATE_TEST_SUITE_P(GemmInt8, EveryParser, ::testing::ValuesIn(kForms), form_name);

}  // namespace
}  // namespace opcert::sdk::test
