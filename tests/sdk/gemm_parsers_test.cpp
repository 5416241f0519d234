// The GEMM family's parsers (opcert/sdk/ops/gemm.h, gemm_fp8.h, gemm_int8.h) against docs/OPS.md:
// every form the contract allows reads into the right dims and attributes, every violation is
// refused with a reason naming the operand and what it should be.
#include <gtest/gtest.h>
#include <opcert/sdk/ops/gemm.h>
#include <opcert/sdk/ops/gemm_fp8.h>
#include <opcert/sdk/ops/gemm_int8.h>

#include "sdk/call_fixture.h"

namespace opcert::sdk::test {
namespace {

constexpr int32_t kBf16 = OPCERT_DTYPE_BF16, kF32 = OPCERT_DTYPE_F32, kF16 = OPCERT_DTYPE_F16;
constexpr int32_t kE4 = OPCERT_DTYPE_F8_E4M3FN, kE5 = OPCERT_DTYPE_F8_E5M2, kI8 = OPCERT_DTYPE_I8;

// ---- gemm ----------------------------------------------------------------------------------

TestCall gemm(int32_t dtype, int64_t m, int64_t n, int64_t k) {
  TestCall c;
  c.in("a", dtype, {m, k}).in("b", dtype, {n, k}).out("c", dtype, {m, n});
  return c;
}

TEST(GemmParser, WeightLayoutWithDefaults) {
  TestCall c = gemm(kBf16, 3, 5, 7);
  const auto p = c.parse(parse_gemm);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.operands.m, 3);
  EXPECT_EQ(p.operands.n, 5);
  EXPECT_EQ(p.operands.k, 7);
  EXPECT_EQ(p.operands.dtype, kBf16);
  EXPECT_EQ(p.operands.b_layout, BLayout::kNK);
  EXPECT_FALSE(p.operands.allow_tf32);
  EXPECT_FALSE(p.operands.bias);
}

TEST(GemmParser, KnLayoutBiasAndTf32) {
  TestCall c;
  c.in("a", kF32, {3, 7}).in("b", kF32, {7, 5}).in("bias", kF32, {5}).out("c", kF32, {3, 5});
  c.attr("b_layout", "kn").attr("allow_tf32", 1);
  const auto p = c.parse(parse_gemm);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.operands.b_layout, BLayout::kKN);
  EXPECT_EQ(p.operands.n, 5);
  EXPECT_EQ(p.operands.k, 7);
  EXPECT_TRUE(p.operands.allow_tf32);
  ASSERT_TRUE(p.operands.bias);
  EXPECT_EQ(p.operands.bias->dim(0), 5);
}

TEST(GemmParser, EmptyProblemsAreCalls) {
  TestCall c = gemm(kF16, 0, 4, 0);
  const auto p = c.parse(parse_gemm, true);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.operands.m, 0);
  EXPECT_EQ(p.operands.k, 0);
}

TEST(GemmParser, Violations) {
  auto reason = [](TestCall c) { return c.parse(parse_gemm).reason; };
  TestCall no_b;
  no_b.in("a", kF32, {2, 3}).out("c", kF32, {2, 4});
  EXPECT_EQ(reason(std::move(no_b)), "missing input 'b'");
  EXPECT_EQ(reason(gemm(OPCERT_DTYPE_I8, 2, 4, 3)), "a must be fp32/fp16/bf16 (got int8)");
  TestCall mixed;
  mixed.in("a", kBf16, {2, 3}).in("b", kF16, {4, 3}).out("c", kBf16, {2, 4});
  EXPECT_EQ(reason(std::move(mixed)), "b is fp16, expected bf16 (the dtype of a)");
  TestCall rank;
  rank.in("a", kF32, {2, 3, 1}).in("b", kF32, {4, 3}).out("c", kF32, {2, 4});
  EXPECT_EQ(reason(std::move(rank)), "a must be 2-D [M, K] (got [2, 3, 1])");
  TestCall k_mismatch;
  k_mismatch.in("a", kF32, {2, 3}).in("b", kF32, {4, 5}).out("c", kF32, {2, 4});
  EXPECT_EQ(reason(std::move(k_mismatch)), "b has shape [4, 5], expected [N, K] = [4, 3]");
  TestCall kn = gemm(kF32, 2, 4, 3);  // b is [N, K] but claimed [K, N]
  kn.attr("b_layout", "kn");
  EXPECT_EQ(reason(std::move(kn)), "b has shape [4, 3], expected [K, N] = [3, 3]");
  TestCall c_shape;
  c_shape.in("a", kF32, {2, 3}).in("b", kF32, {4, 3}).out("c", kF32, {4, 2});
  EXPECT_EQ(reason(std::move(c_shape)), "c has shape [4, 2], expected [M, N] = [2, 4]");
  TestCall bias;
  bias.in("a", kF32, {2, 3}).in("b", kF32, {4, 3}).in("bias", kF32, {3}).out("c", kF32, {2, 4});
  EXPECT_EQ(reason(std::move(bias)), "bias has shape [3], expected [N] = [4]");
  TestCall layout = gemm(kF32, 2, 4, 3);
  layout.attr("b_layout", "tn");
  EXPECT_EQ(reason(std::move(layout)), "attribute 'b_layout' must be one of \"nk\", \"kn\" (got \"tn\")");
  TestCall tf32_half = gemm(kF16, 2, 4, 3);
  tf32_half.attr("allow_tf32", 1);
  EXPECT_EQ(reason(std::move(tf32_half)), "attribute 'allow_tf32' = 1 needs fp32 operands (got fp16)");
  TestCall tf32_two = gemm(kF32, 2, 4, 3);
  tf32_two.attr("allow_tf32", 2);
  EXPECT_EQ(reason(std::move(tf32_two)), "attribute 'allow_tf32' must be 0 or 1 (got 2)");
}

// ---- gemm_fp8 ------------------------------------------------------------------------------

TestCall fp8(const char* scaling, std::vector<int64_t> a_scale, std::vector<int64_t> b_scale, int64_t m = 4,
             int64_t n = 256, int64_t k = 300) {
  TestCall c;
  c.in("a", kE4, {m, k}).in("b", kE5, {n, k}).in("a_scale", kF32, std::move(a_scale)).in("b_scale", kF32, std::move(b_scale));
  c.out("c", kBf16, {m, n});
  if (scaling != nullptr) c.attr("scaling", scaling);
  return c;
}

TEST(GemmFp8Parser, EachScalingMode) {
  TestCall tensor = fp8(nullptr, {1}, {1});
  const auto t = tensor.parse(parse_gemm_fp8);
  ASSERT_TRUE(t.ok) << t.reason;
  EXPECT_EQ(t.operands.scaling, Fp8Scaling::kTensor);
  EXPECT_EQ(t.operands.block, 128);
  TestCall channel = fp8("channel", {4}, {256});
  const auto c = channel.parse(parse_gemm_fp8);
  ASSERT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.operands.scaling, Fp8Scaling::kChannel);
  TestCall block = fp8("block", {4, 3}, {2, 3});  // K = 300: 3 blocks; N = 256: 2
  const auto b = block.parse(parse_gemm_fp8);
  ASSERT_TRUE(b.ok) << b.reason;
  EXPECT_EQ(b.operands.scaling, Fp8Scaling::kBlock);
  EXPECT_EQ(b.operands.blocks(b.operands.k), 3);
  EXPECT_EQ(b.operands.m, 4);
  EXPECT_EQ(b.operands.n, 256);
  TestCall block64 = fp8("block", {4, 5}, {4, 5});
  block64.attr("block_size", 64);
  const auto b64 = block64.parse(parse_gemm_fp8);
  ASSERT_TRUE(b64.ok) << b64.reason;
  EXPECT_EQ(b64.operands.block, 64);
}

TEST(GemmFp8Parser, Violations) {
  auto reason = [](TestCall c) { return c.parse(parse_gemm_fp8).reason; };
  EXPECT_EQ(reason(fp8("channel", {1}, {1})), "a_scale has shape [1], expected [M] = [4]");
  EXPECT_EQ(reason(fp8(nullptr, {4}, {1})), "a_scale has shape [4], expected [1] for scaling \"tensor\"");
  EXPECT_EQ(reason(fp8("block", {4, 3}, {3, 2})), "b_scale has shape [3, 2], expected [ceil(N/128), ceil(K/128)] = [2, 3]");
  EXPECT_EQ(reason(fp8("rowwise", {1}, {1})), "attribute 'scaling' must be one of \"tensor\", \"channel\", \"block\" (got \"rowwise\")");
  TestCall zero_block = fp8("block", {4, 3}, {2, 3});
  zero_block.attr("block_size", 0);
  EXPECT_EQ(reason(std::move(zero_block)), "attribute 'block_size' must be positive (got 0)");
  TestCall no_scale;
  no_scale.in("a", kE4, {2, 3}).in("b", kE4, {4, 3}).in("a_scale", kF32, {1}).out("c", kBf16, {2, 4});
  EXPECT_EQ(reason(std::move(no_scale)), "missing input 'b_scale'");
  TestCall int8_a;
  int8_a.in("a", kI8, {2, 3}).in("b", kE4, {4, 3}).in("a_scale", kF32, {1}).in("b_scale", kF32, {1}).out("c", kBf16, {2, 4});
  EXPECT_EQ(reason(std::move(int8_a)), "a must be fp8_e4m3fn/fp8_e5m2 (got int8)");
  TestCall bias;
  bias.in("a", kE4, {2, 3}).in("b", kE4, {4, 3}).in("a_scale", kF32, {1}).in("b_scale", kF32, {1}).in("bias", kF32, {4});
  bias.out("c", kBf16, {2, 4});
  EXPECT_EQ(reason(std::move(bias)), "bias is fp32, expected bf16 (the dtype of c)");
  TestCall out_int;
  out_int.in("a", kE4, {2, 3}).in("b", kE4, {4, 3}).in("a_scale", kF32, {1}).in("b_scale", kF32, {1}).out("c", OPCERT_DTYPE_I32, {2, 4});
  EXPECT_EQ(reason(std::move(out_int)), "c must be bf16/fp16/fp32 (got int32)");
}

// ---- gemm_int8 -----------------------------------------------------------------------------

TEST(GemmInt8Parser, ExactAndDequantizedOutputs) {
  TestCall exact;
  exact.in("a", kI8, {3, 64}).in("b", kI8, {5, 64}).out("c", OPCERT_DTYPE_I32, {3, 5});
  const auto e = exact.parse(parse_gemm_int8);
  ASSERT_TRUE(e.ok) << e.reason;
  EXPECT_FALSE(e.operands.dequantize);
  EXPECT_EQ(e.operands.k, 64);
  TestCall deq;
  deq.in("a", kI8, {3, 64}).in("b", kI8, {5, 64}).in("a_scale", kF32, {3}).in("b_scale", kF32, {5}).in("bias", kF16, {5});
  deq.out("c", kF16, {3, 5});
  const auto d = deq.parse(parse_gemm_int8);
  ASSERT_TRUE(d.ok) << d.reason;
  EXPECT_TRUE(d.operands.dequantize);
  EXPECT_TRUE(d.operands.bias);
  TestCall ignored;  // scales do not enter the exact sum: given with int32, they are ignored
  ignored.in("a", kI8, {3, 64}).in("b", kI8, {5, 64}).in("a_scale", kF32, {3}).in("b_scale", kF32, {5});
  ignored.out("c", OPCERT_DTYPE_I32, {3, 5});
  EXPECT_TRUE(ignored.parse(parse_gemm_int8).ok);
}

TEST(GemmInt8Parser, Violations) {
  auto reason = [](TestCall c) { return c.parse(parse_gemm_int8).reason; };
  TestCall no_scales;
  no_scales.in("a", kI8, {3, 64}).in("b", kI8, {5, 64}).out("c", kBf16, {3, 5});
  EXPECT_EQ(reason(std::move(no_scales)), "missing input 'a_scale'");
  TestCall bias_exact;
  bias_exact.in("a", kI8, {3, 64}).in("b", kI8, {5, 64}).in("bias", OPCERT_DTYPE_I32, {5}).out("c", OPCERT_DTYPE_I32, {3, 5});
  EXPECT_EQ(reason(std::move(bias_exact)), "bias is only defined for dequantized (bf16/fp16) outputs, not int32");
  TestCall scale_shape;
  scale_shape.in("a", kI8, {3, 64}).in("b", kI8, {5, 64}).in("a_scale", kF32, {3}).in("b_scale", kF32, {3});
  scale_shape.out("c", kBf16, {3, 5});
  EXPECT_EQ(reason(std::move(scale_shape)), "b_scale has shape [3], expected [N] = [5]");
  TestCall fp32_out;
  fp32_out.in("a", kI8, {3, 64}).in("b", kI8, {5, 64}).out("c", kF32, {3, 5});
  EXPECT_EQ(reason(std::move(fp32_out)), "c must be int32/bf16/fp16 (got fp32)");
  TestCall b_rank;
  b_rank.in("a", kI8, {3, 64}).in("b", kI8, {64}).out("c", OPCERT_DTYPE_I32, {3, 5});
  EXPECT_EQ(reason(std::move(b_rank)), "b must be 2-D [N, K] (got [64])");
}

}  // namespace
}  // namespace opcert::sdk::test
