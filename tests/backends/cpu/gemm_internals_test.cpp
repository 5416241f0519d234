// The CPU GEMMs' internals: the backend's own dtype codecs against the harness's (exhaustive
// decodes, encodes of special and random values), the AVX-512, AVX512-BF16 and portable kernels
// against each other, the pair packing and its exactness rule, and run() called without a query
// rejecting bad shapes with INVALID_ARGUMENT.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

#include "backends/cpu/gemm_test_support.h"
#include "model/scalar_codec.h"
#include "cpu_implementations.h"
#include "ops/cpu_numeric.h"
#include "ops/gemm_driver.h"
#include "ops/gemm_pack_pairs.h"

namespace opcert::test::cpugemm {
namespace {

using namespace opcert::cpu;

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

TEST(CpuNumeric, DecodersAgreeWithTheHarnessOnEveryCode) {
  for (uint32_t i = 0; i < 65536; ++i) {
    ASSERT_TRUE(same(fp16_to_f32(static_cast<uint16_t>(i)), opcert::decode_fp16(static_cast<uint16_t>(i)))) << i;
    ASSERT_TRUE(same(bf16_to_f32(static_cast<uint16_t>(i)), opcert::decode_bf16(static_cast<uint16_t>(i)))) << i;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    ASSERT_TRUE(same(e4m3_to_f32(static_cast<uint8_t>(i)), opcert::decode_fp8_e4m3fn(static_cast<uint8_t>(i)))) << i;
    ASSERT_TRUE(same(e5m2_to_f32(static_cast<uint8_t>(i)), opcert::decode_fp8_e5m2(static_cast<uint8_t>(i)))) << i;
  }
}

void expect_encoders_agree(float v) {
  const double d = v;
  ASSERT_EQ(f32_to_fp16(v), opcert::encode_fp16(d)) << v;
  ASSERT_EQ(f32_to_bf16(v), opcert::encode_bf16(d)) << v;
  ASSERT_EQ(f32_to_e4m3(v), opcert::encode_fp8_e4m3fn(d)) << v;
  ASSERT_EQ(f32_to_e5m2(v), opcert::encode_fp8_e5m2(d)) << v;
}

TEST(CpuNumeric, EncodersAgreeWithTheHarnessOnSpecialsTiesAndRandomBits) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 448.0f, 464.0f, 465.0f, 480.0f, 1e9f,
                  57344.0f, 61440.0f, 61441.0f, 65504.0f, 65520.0f, 65519.99f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-9f,
                  0x1p-10f, 0x1.8p-10f, 0x1p-16f, 0x1p-17f, 0x1.8p-17f, 0x1p-133f, 0x1p-149f, 3.0e38f, 17.0f, -4.5f})
    expect_encoders_agree(v);
  // Every code's value and the midpoints between neighbouring codes (the ties).
  for (uint32_t i = 0; i < 65535; ++i) {
    const double lo = opcert::decode_fp16(static_cast<uint16_t>(i)), hi = opcert::decode_fp16(static_cast<uint16_t>(i + 1));
    if (std::isfinite(lo)) expect_encoders_agree(static_cast<float>(lo));
    if (std::isfinite(lo) && std::isfinite(hi) && i != 0x7FFF) expect_encoders_agree(static_cast<float>((lo + hi) / 2));
  }
  Random rng(77);
  for (int i = 0; i < 200000; ++i) expect_encoders_agree(std::bit_cast<float>(static_cast<uint32_t>(rng.next())));
}

// Runs the fp32 driver on one ISA and returns C.
// Runs the driver on one ISA over the views a ([M, K]) and b, and returns C.
std::vector<float> gemm_of_views(Isa isa, MatrixView a, MatrixView b, int64_t m, int64_t n, int64_t k,
                                 const BlockScales* scales) {
  std::vector<float> c(static_cast<std::size_t>(m * n), -1.0f);
  F32Gemm g;
  g.a = a;
  g.b = b;
  g.m = m;
  g.n = n;
  g.k = k;
  g.block_scales = scales;
  g.epilogue = [&](int64_t m0, int64_t n0, int64_t mc, int64_t nc, const float* acc, int64_t ld) {
    for (int64_t i = 0; i < mc; ++i)
      for (int64_t j = 0; j < nc; ++j) c[static_cast<std::size_t>((m0 + i) * n + n0 + j)] = acc[i * ld + j];
  };
  run_f32_gemm(g, isa);
  return c;
}

std::vector<float> f32_gemm(Isa isa, const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t n,
                            int64_t k, const BlockScales* scales) {
  return gemm_of_views(isa, {a.data(), OPCERT_DTYPE_F32, k, 1}, {b.data(), OPCERT_DTYPE_F32, k, 1}, m, n, k, scales);
}

class GemmKernels : public ::testing::TestWithParam<int64_t> {};

// M = 45: packed register tiles; M = 3: the few-row dot products.
TEST_P(GemmKernels, Avx512AndPortableAgree) {
  if (!isa_available(Isa::kAvx512)) GTEST_SKIP() << "this CPU has no AVX-512";
  const int64_t m = GetParam(), n = 77, k = 531;
  Random rng(8);
  std::vector<float> ai(m * k), bi(n * k), ar(m * k), br(n * k);
  for (auto& v : ai) v = static_cast<float>(rng.integer(-8, 8));
  for (auto& v : bi) v = static_cast<float>(rng.integer(-8, 8));
  for (auto& v : ar) v = static_cast<float>(rng.uniform(-1, 1));
  for (auto& v : br) v = static_cast<float>(rng.uniform(-1, 1));
  // Integers: both exact, so equal bit for bit.
  EXPECT_EQ(f32_gemm(Isa::kAvx512, ai, bi, m, n, k, nullptr), f32_gemm(Isa::kPortable, ai, bi, m, n, k, nullptr));
  // Random values: fused and unfused multiply-adds differ only by fp32 rounding.
  const auto fast = f32_gemm(Isa::kAvx512, ar, br, m, n, k, nullptr);
  const auto slow = f32_gemm(Isa::kPortable, ar, br, m, n, k, nullptr);
  for (std::size_t e = 0; e < fast.size(); ++e) ASSERT_NEAR(fast[e], slow[e], 2e-4) << e;
  // Block scales (powers of two keep integer data exact): equal bit for bit.
  const int64_t blocks = (k + 127) / 128;
  std::vector<float> as(m * blocks), bs(((n + 127) / 128) * blocks);
  for (auto& v : as) v = std::ldexp(1.0f, static_cast<int>(rng.integer(-2, 2)));
  for (auto& v : bs) v = std::ldexp(1.0f, static_cast<int>(rng.integer(-2, 2)));
  BlockScales scales{as.data(), blocks, bs.data(), blocks, 128};
  EXPECT_EQ(f32_gemm(Isa::kAvx512, ai, bi, m, n, k, &scales), f32_gemm(Isa::kPortable, ai, bi, m, n, k, &scales));

  // int8: both exact.
  std::vector<int8_t> a8(m * k), b8(n * k);
  for (auto& v : a8) v = static_cast<int8_t>(rng.integer(-128, 127));
  for (auto& v : b8) v = static_cast<int8_t>(rng.integer(-128, 127));
  auto i8_gemm = [&](Isa isa) {
    std::vector<int32_t> c(static_cast<std::size_t>(m * n), -1);
    I8Gemm g;
    g.a = a8.data();
    g.b = b8.data();
    g.m = m;
    g.n = n;
    g.k = k;
    g.epilogue = [&](int64_t m0, int64_t n0, int64_t mc, int64_t nc, const int32_t* acc, int64_t ld) {
      for (int64_t i = 0; i < mc; ++i)
        for (int64_t j = 0; j < nc; ++j) c[static_cast<std::size_t>((m0 + i) * n + n0 + j)] = acc[i * ld + j];
    };
    run_i8_gemm(g, isa);
    return c;
  };
  const auto vnni = i8_gemm(Isa::kAvx512), portable = i8_gemm(Isa::kPortable);
  EXPECT_EQ(vnni, portable);
  int64_t exact = 0;
  for (int64_t d = 0; d < k; ++d) exact += int64_t{a8[d]} * b8[d];
  EXPECT_EQ(portable[0], exact);
}

INSTANTIATE_TEST_SUITE_P(Cpu, GemmKernels, ::testing::Values(int64_t{45}, int64_t{3}));

// Runs the driver on 16- or 8-bit operands given as stored bits; B as [N, K] or ([K, N]) kn.
template <class Bits>
std::vector<float> stored_gemm(Isa isa, int32_t dtype, const std::vector<Bits>& a, const std::vector<Bits>& b, int64_t m,
                               int64_t n, int64_t k, bool kn, const BlockScales* scales = nullptr) {
  return gemm_of_views(isa, {a.data(), dtype, k, 1},
                       kn ? MatrixView{b.data(), dtype, 1, n} : MatrixView{b.data(), dtype, k, 1}, m, n, k, scales);
}

class PairKernels : public ::testing::TestWithParam<int64_t> {};

// M = 45: the packed pair kernel; M = 3: the bf16 dot products of decode shapes.
TEST_P(PairKernels, Bf16AgreesWithTheFp32AndPortableKernels) {
  if (!isa_available(Isa::kAvx512Bf16)) GTEST_SKIP() << "this CPU has no AVX512-BF16";
  ASSERT_NE(pair_kernel(Isa::kAvx512Bf16).run, nullptr);
  EXPECT_EQ(pair_kernel(Isa::kAvx512).run, nullptr);
  const int64_t m = GetParam(), n = 77, k = 531;  // K odd: the last pair has one element
  Random rng(31);
  std::vector<uint16_t> ai(m * k), bi(n * k), ar(m * k), br(n * k);
  for (auto& v : ai) v = opcert::encode_bf16(static_cast<double>(rng.integer(-8, 8)));
  for (auto& v : bi) v = opcert::encode_bf16(static_cast<double>(rng.integer(-8, 8)));
  for (auto& v : ar) v = opcert::encode_bf16(rng.uniform(-1, 1));
  for (auto& v : br) v = opcert::encode_bf16(rng.uniform(-1, 1));
  for (bool kn : {false, true}) {
    // Integers: every path exact, so equal bit for bit.
    const auto pairs = stored_gemm(Isa::kAvx512Bf16, OPCERT_DTYPE_BF16, ai, bi, m, n, k, kn);
    EXPECT_EQ(pairs, stored_gemm(Isa::kAvx512, OPCERT_DTYPE_BF16, ai, bi, m, n, k, kn)) << "kn=" << kn;
    EXPECT_EQ(pairs, stored_gemm(Isa::kPortable, OPCERT_DTYPE_BF16, ai, bi, m, n, k, kn)) << "kn=" << kn;
    // Random values: sums in another order, within fp32 rounding.
    const auto fast = stored_gemm(Isa::kAvx512Bf16, OPCERT_DTYPE_BF16, ar, br, m, n, k, kn);
    const auto slow = stored_gemm(Isa::kPortable, OPCERT_DTYPE_BF16, ar, br, m, n, k, kn);
    for (std::size_t e = 0; e < fast.size(); ++e) ASSERT_NEAR(fast[e], slow[e], 2e-4) << "kn=" << kn << " @" << e;
  }
}

// fp8 runs on the pair kernel too (bf16 holds every fp8 value), block scales included.
TEST_P(PairKernels, Fp8WithBlockScalesAgreesWithThePortableKernels) {
  if (!isa_available(Isa::kAvx512Bf16)) GTEST_SKIP() << "this CPU has no AVX512-BF16";
  const int64_t m = GetParam(), n = 150, k = 300;
  Random rng(32);
  std::vector<uint8_t> a(m * k), b(n * k);
  for (auto& v : a) v = opcert::encode_fp8_e4m3fn(static_cast<double>(rng.integer(-16, 16)));
  for (auto& v : b) v = opcert::encode_fp8_e4m3fn(static_cast<double>(rng.integer(-16, 16)) / 8.0);
  const int64_t blocks = (k + 127) / 128;
  std::vector<float> as(m * blocks), bs(((n + 127) / 128) * blocks);
  for (auto& v : as) v = std::ldexp(1.0f, static_cast<int>(rng.integer(-2, 2)));
  for (auto& v : bs) v = std::ldexp(1.0f, static_cast<int>(rng.integer(-2, 2)));
  BlockScales scales{as.data(), blocks, bs.data(), blocks, 128};
  for (const BlockScales* s : {static_cast<const BlockScales*>(nullptr), static_cast<const BlockScales*>(&scales)})
    EXPECT_EQ(stored_gemm(Isa::kAvx512Bf16, OPCERT_DTYPE_F8_E4M3FN, a, b, m, n, k, false, s),
              stored_gemm(Isa::kPortable, OPCERT_DTYPE_F8_E4M3FN, a, b, m, n, k, false, s))
        << (s != nullptr ? "block scales" : "no scales");
}

INSTANTIATE_TEST_SUITE_P(Cpu, PairKernels, ::testing::Values(int64_t{45}, int64_t{3}));

TEST(PairKernels, ExactOnlyWithoutSubnormalInputsOrProducts) {
  auto least = [](int exponent) { return static_cast<uint16_t>(exponent << 7); };  // 1.0 * 2^(exponent - 127)
  EXPECT_TRUE(pair_products_exact(least(127), least(127)));  // 1 * 1
  EXPECT_TRUE(pair_products_exact(least(71), least(71)));    // lsb 2^-63 * 2^-63 = 2^-126
  EXPECT_FALSE(pair_products_exact(least(71), least(70)));   // 2^-127: a partial sum could be subnormal
  EXPECT_FALSE(pair_products_exact(uint16_t{1}, least(200)));  // a subnormal input
  EXPECT_TRUE(pair_products_exact(0, uint16_t{1}));          // all of A zero: no products at all
  EXPECT_TRUE(pair_products_exact(least(255), least(1)));    // inf or NaN: never subnormal
  const std::vector<uint16_t> values{0x0000, 0x8000, 0xBF80, 0x3F00, 0xC000};
  EXPECT_EQ(least_bf16_magnitude(values.data(), static_cast<int64_t>(values.size())), 0x3F00);
  EXPECT_EQ(least_bf16_magnitude(values.data(), 2), 0);
}

TEST(PairKernels, FastPackingAgreesWithThePortableOneInBothLayouts) {
  if (!isa_available(Isa::kAvx512Bf16)) GTEST_SKIP() << "this CPU has no AVX512-BF16";
  const PairKernel fast = pair_kernel(Isa::kAvx512Bf16);
  const int64_t rows = 45, depth = 301;
  Random rng(33);
  std::vector<uint16_t> nk(rows * depth), kn(rows * depth);
  for (auto& v : nk) v = static_cast<uint16_t>(rng.next());  // any bits: NaN, inf, subnormals
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t d = 0; d < depth; ++d) kn[d * rows + r] = nk[r * depth + d];
  for (const int32_t R : {14, 32}) {
    for (const auto& [k0, kc] : {std::pair<int64_t, int64_t>{0, 256}, {256, 45}}) {
      const std::size_t words = static_cast<std::size_t>((rows + R - 1) / R * R * ((kc + 1) / 2));
      std::vector<uint32_t> a(words, 1u), b(words, 2u), c(words, 3u);
      const uint16_t least_a = pack_pair_panels({nk.data(), OPCERT_DTYPE_BF16, depth, 1}, 0, rows, k0, kc, R, a.data(), fast);
      const uint16_t least_b = pack_pair_panels({nk.data(), OPCERT_DTYPE_BF16, depth, 1}, 0, rows, k0, kc, R, b.data(), {});
      const uint16_t least_c = pack_pair_panels({kn.data(), OPCERT_DTYPE_BF16, 1, rows}, 0, rows, k0, kc, R, c.data(), {});
      EXPECT_EQ(a, b) << "R=" << R << " kc=" << kc;
      EXPECT_EQ(a, c) << "R=" << R << " kc=" << kc;
      EXPECT_EQ(least_a, least_b);
      EXPECT_EQ(least_a, least_c);
      uint16_t least = 0;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t d = k0; d < k0 + kc; ++d) least = least_nonzero(least, nk[r * depth + d] & 0x7FFF);
      EXPECT_EQ(least_a, least);
    }
  }
}

// The AVX-512 epilogue stores and fp16 packing against the SDK's scalar codecs.
TEST(GemmKernels, Avx512HalfConversionsAgreeWithTheSdkCodecs) {
  if (!isa_available(Isa::kAvx512)) GTEST_SKIP() << "this CPU has no AVX-512";
  const F32Kernel kernel = f32_kernel(Isa::kAvx512);
  ASSERT_NE(kernel.store_bf16, nullptr);
  ASSERT_NE(kernel.store_fp16, nullptr);
  ASSERT_NE(kernel.pack_fp16, nullptr);
  // Every fp16 value, the midpoints between neighbours (ties), fp32 specials and random bits.
  std::vector<float> values;
  for (uint32_t i = 0; i < 65535; ++i) {
    const double lo = opcert::decode_fp16(static_cast<uint16_t>(i)), hi = opcert::decode_fp16(static_cast<uint16_t>(i + 1));
    values.push_back(static_cast<float>(lo));
    if (std::isfinite(lo) && std::isfinite(hi) && i != 0x7FFF) values.push_back(static_cast<float>((lo + hi) / 2));
  }
  for (float v : {0x1p-133f, 0x1p-149f, 0x1.8p-127f, 3.0e38f, -3.4e38f, std::numeric_limits<float>::infinity()})
    values.push_back(v);
  Random rng(34);
  for (int i = 0; i < 100000; ++i) values.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng.next())));
  values.resize(values.size() - 5);  // not a multiple of 16: the masked tail
  std::vector<uint16_t> bf16(values.size()), fp16(values.size());
  kernel.store_bf16(values.data(), static_cast<int64_t>(values.size()), bf16.data());
  kernel.store_fp16(values.data(), static_cast<int64_t>(values.size()), fp16.data());
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(bf16[i], f32_to_bf16(values[i])) << values[i];
    ASSERT_EQ(fp16[i], f32_to_fp16(values[i])) << values[i];
  }
  // fp16 decoding while packing: every code, as 4096 rows of 16.
  std::vector<uint16_t> codes(65536);
  for (uint32_t i = 0; i < 65536; ++i) codes[i] = static_cast<uint16_t>(i);
  std::vector<float> panel(65536);
  for (int64_t r0 = 0; r0 < 4096; r0 += 16) {
    kernel.pack_fp16(codes.data() + r0 * 16, 16, 16, 16, 16, panel.data());
    for (int64_t r = 0; r < 16; ++r)
      for (int64_t k = 0; k < 16; ++k)
        ASSERT_TRUE(same(panel[k * 16 + r], fp16_to_f32(codes[(r0 + r) * 16 + k]))) << (r0 + r) * 16 + k;
  }
}

TEST(GemmRun, RunWithoutAQueryRejectsBadShapesAsInvalidArgument) {
  Tensor a("a", OPCERT_DTYPE_F32, {4, 8}), b("b", OPCERT_DTYPE_F32, {6, 9}), c("c", OPCERT_DTYPE_F32, {4, 6});
  const abi::OpCall call = Session::describe("cpu.gemm.blocked", {&a, &b}, {&c}, {});
  const sdk::OpCall view(call.call);
  // The backend's implementations as its constructor gets them: every ops/ file registered its own.
  const auto impls = CpuImplementations::make_all();
  const auto find = [&](std::string_view key) -> const sdk::Implementation& {
    for (const auto& impl : impls)
      if (impl.key == key) return impl;
    throw std::runtime_error("no implementation " + std::string(key));
  };
  try {
    find("cpu.gemm.blocked").run(view);
    FAIL() << "run accepted mismatched shapes";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("b has shape [6, 9]"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(c.guards_intact());
  for (const char* key : {"cpu.gemm_fp8.blocked", "cpu.gemm_int8.blocked", "cpu.quantize.rowwise"})
    EXPECT_THROW(find(key).run(view), sdk::Error) << key;  // operands of the wrong op
}

}  // namespace
}  // namespace opcert::test::cpugemm
