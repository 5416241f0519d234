// attention's form for the checks every operand parser passes (tests/sdk/every_parser.h): a full call
// and its parser.
#include <opcert/sdk/ops/attention.h>

#include "sdk/every_parser.h"

namespace opcert::sdk::test {
namespace {

const Form kForms[] = {
    {"attention bshd",
     [] {
       TestCall c;
       c.in("q", kBf16, {2, 4, 4, 8}).in("k", kBf16, {2, 6, 2, 8}).in("v", kBf16, {2, 6, 2, 8});
       c.out("o", kBf16, {2, 4, 4, 8}).out("lse", kF32, {2, 4, 4});
       return c;
     },
     reason_of(parse_attention), {"lse"}},
    {"attention varlen",
     [] {
       TestCall c;
       c.in("q", kBf16, {7, 4, 8}).in("k", kBf16, {9, 2, 8}).in("v", kBf16, {9, 2, 8});
       c.in("cu_seqlens_q", kI32, {3}).in("cu_seqlens_k", kI32, {3}).out("o", kBf16, {7, 4, 8}).out("lse", kF32, {4, 7});
       return c;
     },
     reason_of(parse_attention), {"lse", "cu_seqlens_q", "cu_seqlens_k"}},
    {"attention fp8",
     [] {
       TestCall c;
       const int32_t e4m3 = OPCERT_DTYPE_F8_E4M3FN;
       c.in("q", e4m3, {2, 4, 4, 8}).in("k", e4m3, {2, 6, 2, 8}).in("v", e4m3, {2, 6, 2, 8});
       c.in("q_descale", kF32, {2, 2}).in("k_descale", kF32, {2, 2}).in("v_descale", kF32, {2, 2});
       c.out("o", kBf16, {2, 4, 4, 8}).out("lse", kF32, {2, 4, 4});
       return c;
     },
     reason_of(parse_attention), {"lse", "q_descale", "k_descale", "v_descale"}},
};

INSTANTIATE_TEST_SUITE_P(Attention, EveryParser, ::testing::ValuesIn(kForms), form_name);

}  // namespace
}  // namespace opcert::sdk::test
