// quantize through the torch backend's C ABI: scale = amax / qmax in fp32, q = round(x / scale)
// with ties to even, per token and per tensor, into int8 and both fp8 formats.
#include "torch_host.h"

namespace opcert::torch_test {
namespace {

// Expected q and scale computed in fp32 as the contract states; round_q maps x/scale to q's value.
template <class RoundQ>
void expect_quantized(const Operand& x, const std::vector<Operand>& out, bool per_token, double qmax, RoundQ round_q) {
  const int64_t m = x.shape[0], k = x.shape[1];
  const auto xv = x.values(), qv = out[0].values(), sv = out[1].values();
  for (int64_t r = 0; r < (per_token ? m : 1); ++r) {
    float amax = 0;
    for (int64_t i = per_token ? r * k : 0; i < (per_token ? (r + 1) * k : m * k); ++i)
      amax = std::max(amax, std::fabs(static_cast<float>(xv[i])));
    const float scale = amax / static_cast<float>(qmax);
    EXPECT_EQ(sv[r], scale) << "scale " << r;
    for (int64_t i = per_token ? r * k : 0; i < (per_token ? (r + 1) * k : m * k); ++i) {
      const float scaled = scale == 0 ? 0.0f : std::clamp(static_cast<float>(xv[i]) / scale, float(-qmax), float(qmax));
      EXPECT_EQ(qv[i], round_q(scaled)) << "q[" << i << "] from x " << xv[i];
    }
  }
}

TEST(TorchQuantize, Int8PerTokenRoundsHalfToEvenAndZeroRowsGiveZero) {
  TorchHost host;
  const Operand x = Operand::of("x", OPCERT_DTYPE_F32, {3, 6},
                                {127, 2.5, 3.5, -0.5, -126.6, 1.4999, 0, 0, 0, 0, 0, 0, -254, 1, 3, 5, 0.9, -1});
  std::vector<Operand> out{Operand::output("q", OPCERT_DTYPE_I8, {3, 6}), Operand::output("scale", OPCERT_DTYPE_F32, {3})};
  ASSERT_EQ(host.run("torch.quantize.native", {x}, out).message, "");
  // Hand-worked: row 0 scale 1, row 1 scale 0, row 2 scale 2.
  EXPECT_EQ(out[0].values(), (std::vector<double>{127, 2, 4, 0, -127, 1, 0, 0, 0, 0, 0, 0, -127, 0, 2, 2, 0, 0}));
  EXPECT_EQ(out[1].values(), (std::vector<double>{1, 0, 2}));
}

TEST(TorchQuantize, Int8PerTensorFromBf16) {
  TorchHost host;
  const Operand x = Operand::of("x", OPCERT_DTYPE_BF16, {2, 5}, pseudo_random(10, -3, 3, 21));
  std::vector<Operand> out{Operand::output("q", OPCERT_DTYPE_I8, {2, 5}), Operand::output("scale", OPCERT_DTYPE_F32, {1})};
  ASSERT_EQ(host.run("torch.quantize.native", {x}, out, {Attr::text("granularity", "tensor")}).message, "");
  expect_quantized(x, out, false, 127, [](float v) { return std::nearbyint(static_cast<double>(v)); });
}

TEST(TorchQuantize, Fp8E4m3PerTokenRoundsToNearestEven) {
  TorchHost host;
  // Row 0 has scale 1: 1.0625 and 1.1875 are ties (to 1.0 and 1.25), 0.001 is subnormal, 300 -> 288.
  const Operand x = Operand::of("x", OPCERT_DTYPE_F32, {2, 6}, {448, 1.0625, 1.1875, 0.001, 300, -17, -2, 1, 0.5, 0.3, 0.2, 0.1});
  std::vector<Operand> out{Operand::output("q", OPCERT_DTYPE_F8_E4M3FN, {2, 6}), Operand::output("scale", OPCERT_DTYPE_F32, {2})};
  ASSERT_EQ(host.run("torch.quantize.native", {x}, out).message, "");
  const auto q = out[0].values();
  EXPECT_EQ(std::vector<double>(q.begin(), q.begin() + 6), (std::vector<double>{448, 1.0, 1.25, 0.001953125, 288, -16}));
  expect_quantized(x, out, true, 448, [](float v) { return from_fp8(to_fp8(v, OPCERT_DTYPE_F8_E4M3FN), OPCERT_DTYPE_F8_E4M3FN); });
}

TEST(TorchQuantize, Fp8E5m2PerTensorFromFp16) {
  TorchHost host;
  const Operand x = Operand::of("x", OPCERT_DTYPE_F16, {3, 4}, pseudo_random(12, -40, 40, 22));
  std::vector<Operand> out{Operand::output("q", OPCERT_DTYPE_F8_E5M2, {3, 4}), Operand::output("scale", OPCERT_DTYPE_F32, {1})};
  ASSERT_EQ(host.run("torch.quantize.native", {x}, out, {Attr::text("granularity", "tensor")}).message, "");
  expect_quantized(x, out, false, 57344, [](float v) { return from_fp8(to_fp8(v, OPCERT_DTYPE_F8_E5M2), OPCERT_DTYPE_F8_E5M2); });
}

}  // namespace
}  // namespace opcert::torch_test
