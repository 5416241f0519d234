// What every op's parser must do for every one of its operands, on a full valid call of each op
// (every optional operand given): an operand in another memory, strided, without data at run time,
// of a dtype no op takes, or left out, is refused with a reason that names it. Per-op tests check
// the shapes and attributes; this one checks that no operand escapes the common checks.
#include <gtest/gtest.h>
#include <opcert/sdk/ops.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "sdk/call_fixture.h"

namespace opcert::sdk::test {
namespace {

constexpr int32_t kBf16 = OPCERT_DTYPE_BF16, kF32 = OPCERT_DTYPE_F32, kI32 = OPCERT_DTYPE_I32;

/// The reason `parser` gives for a call ("" when it parses), as a query or a run.
using Reason = std::function<std::string(TestCall&, bool need_data)>;

template <class Parser>
Reason reason_of(Parser parser) {
  return [parser](TestCall& c, bool need_data) { return c.parse(parser, need_data).reason; };
}

Reason collective_reason(Collective op) {
  return reason_of([op](const OpCall& call, CallCheck& check) { return parse_collective(call, check, op, 2); });
}

struct Form {
  std::string name;
  std::function<TestCall()> call;  // valid, with every optional operand
  Reason reason;
  std::set<std::string> optional;  // may be left out (or leave a partner behind, which the reason names)
};

std::vector<Form> forms() {
  return {
      {"gemm",
       [] {
         TestCall c;
         c.in("a", kBf16, {3, 8}).in("b", kBf16, {5, 8}).in("bias", kBf16, {5}).out("c", kBf16, {3, 5});
         return c;
       },
       reason_of(parse_gemm), {"bias"}},
      {"gemm_fp8",
       [] {
         TestCall c;
         c.in("a", OPCERT_DTYPE_F8_E4M3FN, {3, 8}).in("b", OPCERT_DTYPE_F8_E4M3FN, {5, 8}).in("a_scale", kF32, {3});
         c.in("b_scale", kF32, {5}).in("bias", kBf16, {5}).out("c", kBf16, {3, 5}).attr("scaling", "channel");
         return c;
       },
       reason_of(parse_gemm_fp8), {"bias"}},
      {"gemm_int8",
       [] {
         TestCall c;
         c.in("a", OPCERT_DTYPE_I8, {3, 8}).in("b", OPCERT_DTYPE_I8, {5, 8}).in("a_scale", kF32, {3});
         c.in("b_scale", kF32, {5}).in("bias", kBf16, {5}).out("c", kBf16, {3, 5});
         return c;
       },
       reason_of(parse_gemm_int8), {"bias"}},
      {"quantize",
       [] {
         TestCall c;
         c.in("x", kBf16, {3, 8}).out("q", OPCERT_DTYPE_I8, {3, 8}).out("scale", kF32, {3});
         return c;
       },
       reason_of(parse_quantize), {}},
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
      {"rms_norm",
       [] {
         TestCall c;
         c.in("x", kBf16, {3, 8}).in("weight", kBf16, {8}).in("residual", kBf16, {3, 8});
         c.out("y", kBf16, {3, 8}).out("residual_out", kBf16, {3, 8});
         return c;
       },
       reason_of(parse_rms_norm), {"weight", "residual", "residual_out"}},
      {"layer_norm",
       [] {
         TestCall c;
         c.in("x", kBf16, {3, 8}).in("weight", kBf16, {8}).in("bias", kBf16, {8}).in("residual", kBf16, {3, 8});
         c.out("y", kBf16, {3, 8}).out("residual_out", kBf16, {3, 8});
         return c;
       },
       reason_of(parse_layer_norm), {"weight", "bias", "residual", "residual_out"}},
      {"rope",
       [] {
         TestCall c;
         c.in("q", kBf16, {2, 3, 4, 8}).in("k", kBf16, {2, 3, 2, 8}).in("cos", kF32, {16, 4}).in("sin", kF32, {16, 4});
         c.in("positions", kI32, {2, 3}).out("q_out", kBf16, {2, 3, 4, 8}).out("k_out", kBf16, {2, 3, 2, 8});
         return c;
       },
       reason_of(parse_rope), {"k", "k_out", "positions"}},
      {"softmax",
       [] {
         TestCall c;
         c.in("x", kBf16, {3, 8}).out("y", kBf16, {3, 8});
         return c;
       },
       reason_of(parse_softmax), {}},
      {"all_gather",
       [] {
         TestCall c;
         c.in("x", kF32, {5}).out("y", kF32, {10});
         return c;
       },
       collective_reason(Collective::kAllGather), {}},
      {"reduce_scatter",
       [] {
         TestCall c;
         c.in("x", OPCERT_DTYPE_I32, {10}).out("y", OPCERT_DTYPE_I32, {5});
         return c;
       },
       collective_reason(Collective::kReduceScatter), {}},
  };
}

std::string kind_of(const TestCall& c, const std::string& name) { return c.is_input(name) ? "input" : "output"; }

class EveryParser : public ::testing::TestWithParam<Form> {};

TEST_P(EveryParser, TheFullCallParsesAsAQueryAndAsARun) {
  TestCall c = GetParam().call();
  EXPECT_EQ(GetParam().reason(c, false), "");
  EXPECT_EQ(GetParam().reason(c, true), "");
}

// docs/ABI.md, "Attributes": an attribute the op does not define is declined, naming it, never
// ignored; the attributes the op does define (the full call has them) all pass.
TEST_P(EveryParser, AnAttributeTheOpDoesNotDefineIsDeclinedNamingIt) {
  TestCall c = GetParam().call();
  c.attr("transpose_a", 1);
  EXPECT_NE(GetParam().reason(c, false).find("attribute 'transpose_a' is not one this op defines"), std::string::npos)
      << GetParam().reason(c, false);
  EXPECT_NE(GetParam().reason(c, true).find("'transpose_a'"), std::string::npos);
}

TEST_P(EveryParser, EachOperandInAnotherMemoryIsNamed) {
  for (const std::string& name : GetParam().call().operand_names()) {
    TestCall c = GetParam().call();
    c.select(name).on(OPCERT_DEVICE_CUDA);
    EXPECT_EQ(GetParam().reason(c, false), kind_of(c, name) + " '" + name + "' is in CUDA device memory, expected host memory");
  }
}

TEST_P(EveryParser, EachOperandWithoutDataIsNamedAtRunOnly) {
  for (const std::string& name : GetParam().call().operand_names()) {
    TestCall c = GetParam().call();
    c.select(name).without_data();
    EXPECT_EQ(GetParam().reason(c, false), "") << name << ": a query needs no data";
    EXPECT_EQ(GetParam().reason(c, true), kind_of(c, name) + " '" + name + "' has no data");
  }
}

TEST_P(EveryParser, EachStridedOperandIsNamed) {
  for (const std::string& name : GetParam().call().operand_names()) {
    TestCall c = GetParam().call();
    const std::vector<int64_t> shape = c.select(name).shape();
    if (shape.size() < 2) continue;
    std::vector<int64_t> column_major(shape.size(), 1);
    for (std::size_t i = 1; i < shape.size(); ++i) column_major[i] = column_major[i - 1] * shape[i - 1];
    c.strided(column_major);
    EXPECT_EQ(GetParam().reason(c, false),
              kind_of(c, name) + " '" + name + "' is not dense row-major (strided views are not supported)");
  }
}

TEST_P(EveryParser, EachOperandOfADtypeNoOpTakesIsNamedFirst) {
  for (const std::string& name : GetParam().call().operand_names()) {
    TestCall c = GetParam().call();
    c.select(name).as(OPCERT_DTYPE_F64);
    const std::string reason = GetParam().reason(c, false);
    EXPECT_EQ(reason.rfind(name + " ", 0), 0u) << name << ": " << reason;
    EXPECT_NE(reason.find("fp64"), std::string::npos) << name << ": " << reason;
  }
}

TEST_P(EveryParser, EachRequiredOperandLeftOutIsMissing) {
  for (const std::string& name : GetParam().call().operand_names()) {
    TestCall c = GetParam().call();
    const std::string kind = kind_of(c, name);
    c.remove(name);
    const std::string reason = GetParam().reason(c, false);
    if (GetParam().optional.contains(name)) {
      if (!reason.empty()) {
        EXPECT_NE(reason.find(name), std::string::npos) << "left out " << name << ": " << reason;
      }
    } else {
      EXPECT_EQ(reason, "missing " + kind + " '" + name + "'");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, EveryParser, ::testing::ValuesIn(forms()), [](const auto& info) {
  std::string name = info.param.name;
  for (char& ch : name)
    if (ch == ' ') ch = '_';
  return name;
});

}  // namespace
}  // namespace opcert::sdk::test
