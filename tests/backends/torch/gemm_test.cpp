// gemm, gemm_fp8 and gemm_int8 through the torch backend's C ABI, against double formulas on the
// exact values the backend received.
#include "backends/declined.h"
#include "torch_host.h"

namespace opcert::torch_test {
namespace {

// c[m,n] = Σ_k a[m,k]·b(n,k) + bias[n], b read as [N,K] or [K,N].
std::vector<double> linear(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& bias,
                           int64_t m, int64_t k, int64_t n, bool kn) {
  std::vector<double> c(static_cast<std::size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = bias.empty() ? 0 : bias[j];
      for (int64_t p = 0; p < k; ++p) s += a[i * k + p] * (kn ? b[p * n + j] : b[j * k + p]);
      c[i * n + j] = s;
    }
  return c;
}

TEST(TorchBackend, ListsOneNativeKeyPerComputeOpAndOnePerTransportPerCollective) {
  TorchHost host;
  opcert_impl_count_args count{sizeof(count), host.backend(), 0};
  ASSERT_EQ(host.api()->impl_count(&count), nullptr);
  std::vector<std::string> keys;
  for (int32_t i = 0; i < count.count; ++i) {
    opcert_impl_info_args info{sizeof(info), host.backend(), i, nullptr, nullptr, nullptr};
    ASSERT_EQ(host.api()->impl_info(&info), nullptr);
    keys.push_back(info.key);
    EXPECT_EQ(std::string(info.key).rfind("torch." + std::string(info.op) + ".", 0), 0u) << info.key;
  }
  // Each op file registers its family (torch_implementations.h); the backend lists them in the
  // order of the families' names, norm's two keys in the order its file gives them.
  std::vector<std::string> expected{"torch.attention.native", "torch.gemm.native", "torch.gemm_fp8.native",
                                    "torch.gemm_int8.native", "torch.rms_norm.native", "torch.layer_norm.native",
                                    "torch.quantize.native", "torch.rope.native", "torch.softmax.native"};
  // A LibTorch without a usable c10d process group builds the backend without collectives.
  if (host.api()->comm_init != nullptr)
    for (const char* transport : {"gloo", "nccl"})
      for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"})
        expected.push_back(std::string("torch.") + op + "." + transport);
  EXPECT_EQ(keys, expected);
}

TEST(TorchGemm, Bf16WithBiasIsExactOnSmallIntegers) {
  TorchHost host;
  const int64_t m = 3, k = 5, n = 4;
  auto ints = [](std::size_t count, uint32_t seed) {
    auto v = pseudo_random(count, -3.49, 3.49, seed);
    for (auto& x : v) x = std::round(x);
    return v;
  };
  const Operand a = Operand::of("a", OPCERT_DTYPE_BF16, {m, k}, ints(m * k, 1));
  const Operand b = Operand::of("b", OPCERT_DTYPE_BF16, {n, k}, ints(n * k, 2));
  const Operand bias = Operand::of("bias", OPCERT_DTYPE_BF16, {n}, {0.5, -1, 2, 0});
  std::vector<Operand> out{Operand::output("c", OPCERT_DTYPE_BF16, {m, n})};
  ASSERT_EQ(host.run("torch.gemm.native", {a, b, bias}, out).message, "");
  EXPECT_EQ(out[0].values(), linear(a.values(), b.values(), bias.values(), m, k, n, false));
}

TEST(TorchGemm, Fp16KnLayoutWithinFp16Rounding) {
  TorchHost host;
  const int64_t m = 2, k = 7, n = 3;
  const Operand a = Operand::of("a", OPCERT_DTYPE_F16, {m, k}, pseudo_random(m * k, -1, 1, 3));
  const Operand b = Operand::of("b", OPCERT_DTYPE_F16, {k, n}, pseudo_random(k * n, -1, 1, 4));
  std::vector<Operand> out{Operand::output("c", OPCERT_DTYPE_F16, {m, n})};
  ASSERT_EQ(host.run("torch.gemm.native", {a, b}, out, {Attr::text("b_layout", "kn")}).message, "");
  expect_close(out[0].values(), linear(a.values(), b.values(), {}, m, k, n, true), kF16Eps, 1e-3, "c");
}

TEST(TorchGemm, Fp32AllowingTf32IsAcceptedAndStaysFp32) {
  // torch on the CPU has no TF32: the attribute is ignored and the result is fp32's.
  TorchHost host;
  const int64_t m = 3, k = 40, n = 5;
  const Operand a = Operand::of("a", OPCERT_DTYPE_F32, {m, k}, pseudo_random(m * k, -1, 1, 5));
  const Operand b = Operand::of("b", OPCERT_DTYPE_F32, {n, k}, pseudo_random(n * k, -1, 1, 6));
  std::vector<Operand> out{Operand::output("c", OPCERT_DTYPE_F32, {m, n})};
  ASSERT_EQ(host.run("torch.gemm.native", {a, b}, out, {Attr::integer("allow_tf32", 1)}).message, "");
  expect_close(out[0].values(), linear(a.values(), b.values(), {}, m, k, n, false), kF32Eps, 1e-5, "c");
}

TEST(TorchGemm, QueryRefusesMixedDtypes) {
  TorchHost host;
  const Outcome q = host.query("torch.gemm.native", {Operand::output("a", OPCERT_DTYPE_BF16, {2, 3}),
                                                     Operand::output("b", OPCERT_DTYPE_F16, {4, 3})},
                               {Operand::output("c", OPCERT_DTYPE_BF16, {2, 4})});
  test::abi::expect_declined(q, "b is fp16, expected bf16 (the dtype of a)");
}

// Values of random finite fp8 codes of a dtype.
std::vector<double> fp8_values(std::size_t count, int32_t dtype, uint32_t seed) {
  auto v = pseudo_random(count, -8, 8, seed);
  for (auto& x : v) x = from_fp8(to_fp8(x, dtype), dtype);
  return v;
}

TEST(TorchGemmFp8, BlockScalesWithPartialBlocksAndMixedFormats) {
  TorchHost host;
  const int64_t m = 3, k = 200, n = 130, kb = 2, nb = 2;  // K and N both end in a partial block
  const Operand a = Operand::of("a", OPCERT_DTYPE_F8_E4M3FN, {m, k}, fp8_values(m * k, OPCERT_DTYPE_F8_E4M3FN, 5));
  const Operand b = Operand::of("b", OPCERT_DTYPE_F8_E5M2, {n, k}, fp8_values(n * k, OPCERT_DTYPE_F8_E5M2, 6));
  const Operand as = Operand::of("a_scale", OPCERT_DTYPE_F32, {m, kb}, {0.5, 2, 1, 0.25, 4, 1.5});
  const Operand bs = Operand::of("b_scale", OPCERT_DTYPE_F32, {nb, kb}, {1, 0.125, 3, 0.5});
  const Operand bias = Operand::of("bias", OPCERT_DTYPE_F32, {n}, pseudo_random(n, -10, 10, 7));
  std::vector<Operand> out{Operand::output("c", OPCERT_DTYPE_F32, {m, n})};
  ASSERT_EQ(host.run("torch.gemm_fp8.native", {a, b, as, bs, bias}, out, {Attr::text("scaling", "block")}).message, "");
  const auto av = a.values(), bv = b.values(), asv = as.values(), bsv = bs.values(), biasv = bias.values();
  std::vector<double> want(m * n), mag(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = biasv[j], absum = std::fabs(biasv[j]);
      for (int64_t p = 0; p < k; ++p) {
        const double t = asv[i * kb + p / 128] * bsv[(j / 128) * kb + p / 128] * av[i * k + p] * bv[j * k + p];
        s += t, absum += std::fabs(t);
      }
      want[i * n + j] = s, mag[i * n + j] = absum;
    }
  const auto got = out[0].values();
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 4 * kF32Eps * mag[i] + 1e-6) << i;
}

TEST(TorchGemmFp8, PerChannelScalesToBf16) {
  TorchHost host;
  const int64_t m = 2, k = 32, n = 16;
  const Operand a = Operand::of("a", OPCERT_DTYPE_F8_E4M3FN, {m, k}, fp8_values(m * k, OPCERT_DTYPE_F8_E4M3FN, 8));
  const Operand b = Operand::of("b", OPCERT_DTYPE_F8_E4M3FN, {n, k}, fp8_values(n * k, OPCERT_DTYPE_F8_E4M3FN, 9));
  const Operand as = Operand::of("a_scale", OPCERT_DTYPE_F32, {m}, {0.5, 0.03125});
  const Operand bs = Operand::of("b_scale", OPCERT_DTYPE_F32, {n}, pseudo_random(n, 0.1, 2, 10));
  std::vector<Operand> out{Operand::output("c", OPCERT_DTYPE_BF16, {m, n})};
  ASSERT_EQ(host.run("torch.gemm_fp8.native", {a, b, as, bs}, out, {Attr::text("scaling", "channel")}).message, "");
  auto want = linear(a.values(), b.values(), {}, m, k, n, false);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) want[i * n + j] *= as.values()[i] * bs.values()[j];
  // 2u as docs/TOLERANCES.md allows: torch's CUDA row-wise _scaled_mm was seen 1.2 ulp off on an H100.
  expect_close(out[0].values(), want, 2 * kBf16Eps, 1e-6, "c");
}

TEST(TorchGemmFp8, PerTensorScalesWithBiasToFp16) {
  // K and N multiples of 16: the shape at::_scaled_mm takes on CUDA.
  TorchHost host;
  const int64_t m = 16, k = 32, n = 16;
  const Operand a = Operand::of("a", OPCERT_DTYPE_F8_E4M3FN, {m, k}, fp8_values(m * k, OPCERT_DTYPE_F8_E4M3FN, 17));
  const Operand b = Operand::of("b", OPCERT_DTYPE_F8_E5M2, {n, k}, fp8_values(n * k, OPCERT_DTYPE_F8_E5M2, 18));
  const Operand as = Operand::of("a_scale", OPCERT_DTYPE_F32, {1}, {0.25});
  const Operand bs = Operand::of("b_scale", OPCERT_DTYPE_F32, {1}, {0.125});
  const Operand bias = Operand::of("bias", OPCERT_DTYPE_F16, {n}, pseudo_random(n, -4, 4, 19));
  std::vector<Operand> out{Operand::output("c", OPCERT_DTYPE_F16, {m, n})};
  ASSERT_EQ(host.run("torch.gemm_fp8.native", {a, b, as, bs, bias}, out).message, "");
  auto want = linear(a.values(), b.values(), {}, m, k, n, false);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) want[i * n + j] = want[i * n + j] / 32 + bias.values()[j];
  expect_close(out[0].values(), want, 2 * kF16Eps, 1e-3, "c");
}

// Random int8 values.
std::vector<double> int8_values(std::size_t count, uint32_t seed) {
  auto v = pseudo_random(count, -128, 127.99, seed);
  for (auto& x : v) x = std::floor(x);
  return v;
}

// gemm_int8 of random int8 a [m, k] and b [n, k] (seeds `seed`, `seed` + 1) into int32: exact.
void expect_exact_int32_gemm(int64_t m, int64_t k, int64_t n, uint32_t seed) {
  TorchHost host;
  const Operand a = Operand::of("a", OPCERT_DTYPE_I8, {m, k}, int8_values(m * k, seed));
  const Operand b = Operand::of("b", OPCERT_DTYPE_I8, {n, k}, int8_values(n * k, seed + 1));
  std::vector<Operand> out{Operand::output("c", OPCERT_DTYPE_I32, {m, n})};
  ASSERT_EQ(host.run("torch.gemm_int8.native", {a, b}, out).message, "");
  EXPECT_EQ(out[0].values(), linear(a.values(), b.values(), {}, m, k, n, false));
}

TEST(TorchGemmInt8, Int32OutputIsExact) { expect_exact_int32_gemm(3, 37, 5, 11); }

TEST(TorchGemmInt8, Int32ExactAtTensorCoreShapes) {
  // M > 16 and K, N multiples of 8: the shape at::_int_mm takes on CUDA.
  expect_exact_int32_gemm(32, 64, 16, 15);
}

TEST(TorchGemmInt8, DequantizedFp16WithBias) {
  TorchHost host;
  const int64_t m = 2, k = 16, n = 3;
  const Operand a = Operand::of("a", OPCERT_DTYPE_I8, {m, k}, pseudo_random(m * k, -100, 100, 13));
  const Operand b = Operand::of("b", OPCERT_DTYPE_I8, {n, k}, pseudo_random(n * k, -100, 100, 14));
  const Operand as = Operand::of("a_scale", OPCERT_DTYPE_F32, {m}, {0.001, 0.002});
  const Operand bs = Operand::of("b_scale", OPCERT_DTYPE_F32, {n}, {0.5, 0.25, 1});
  const Operand bias = Operand::of("bias", OPCERT_DTYPE_F16, {n}, {1, -2, 0.5});
  std::vector<Operand> out{Operand::output("c", OPCERT_DTYPE_F16, {m, n})};
  ASSERT_EQ(host.run("torch.gemm_int8.native", {a, b, as, bs, bias}, out).message, "");
  auto acc = linear(a.values(), b.values(), {}, m, k, n, false);
  std::vector<double> want(acc.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      want[i * n + j] = as.values()[i] * bs.values()[j] * acc[i * n + j] + bias.values()[j];
  expect_close(out[0].values(), want, kF16Eps, 1e-6, "c");
}

}  // namespace
}  // namespace opcert::torch_test
