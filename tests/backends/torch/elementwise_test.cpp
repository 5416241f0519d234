// rms_norm, layer_norm, rope and softmax through the torch backend's C ABI against double formulas.
#include "torch_host.h"

namespace opcert::torch_test {
namespace {

TEST(TorchRmsNorm, Bf16WithResidualAndWeight) {
  TorchHost host;
  const int64_t t = 3, h = 8;
  const Operand x = Operand::of("x", OPCERT_DTYPE_BF16, {t, h}, pseudo_random(t * h, -2, 2, 51));
  const Operand res = Operand::of("residual", OPCERT_DTYPE_BF16, {t, h}, pseudo_random(t * h, -2, 2, 52));
  const Operand w = Operand::of("weight", OPCERT_DTYPE_BF16, {h}, pseudo_random(h, 0.5, 1.5, 53));
  std::vector<Operand> out{Operand::output("y", OPCERT_DTYPE_BF16, {t, h}), Operand::output("residual_out", OPCERT_DTYPE_BF16, {t, h})};
  ASSERT_EQ(host.run("torch.rms_norm.native", {x, w, res}, out, {Attr::real("eps", 1e-5)}).message, "");
  std::vector<double> r(t * h), y(t * h);
  for (int64_t i = 0; i < t * h; ++i) r[i] = from_bf16(to_bf16(x.values()[i] + res.values()[i]));  // one rounding
  for (int64_t i = 0; i < t; ++i) {
    double ms = 0;
    for (int64_t j = 0; j < h; ++j) ms += r[i * h + j] * r[i * h + j] / h;
    for (int64_t j = 0; j < h; ++j) y[i * h + j] = r[i * h + j] / std::sqrt(ms + 1e-5) * w.values()[j];
  }
  EXPECT_EQ(out[1].values(), r);
  expect_close(out[0].values(), y, kBf16Eps, 1e-6, "y");
}

TEST(TorchLayerNorm, Fp32WithResidualWeightAndBias) {
  TorchHost host;
  const int64_t t = 2, h = 16;
  const Operand x = Operand::of("x", OPCERT_DTYPE_F32, {t, h}, pseudo_random(t * h, -3, 5, 54));
  const Operand res = Operand::of("residual", OPCERT_DTYPE_F32, {t, h}, pseudo_random(t * h, -1, 1, 55));
  const Operand w = Operand::of("weight", OPCERT_DTYPE_F32, {h}, pseudo_random(h, 0.5, 1.5, 56));
  const Operand b = Operand::of("bias", OPCERT_DTYPE_F32, {h}, pseudo_random(h, -1, 1, 57));
  std::vector<Operand> out{Operand::output("y", OPCERT_DTYPE_F32, {t, h}), Operand::output("residual_out", OPCERT_DTYPE_F32, {t, h})};
  ASSERT_EQ(host.run("torch.layer_norm.native", {x, res, w, b}, out).message, "");
  std::vector<double> r(t * h), y(t * h);
  for (int64_t i = 0; i < t * h; ++i) r[i] = static_cast<float>(x.values()[i] + res.values()[i]);
  for (int64_t i = 0; i < t; ++i) {
    double mu = 0, var = 0;
    for (int64_t j = 0; j < h; ++j) mu += r[i * h + j] / h;
    for (int64_t j = 0; j < h; ++j) var += (r[i * h + j] - mu) * (r[i * h + j] - mu) / h;
    for (int64_t j = 0; j < h; ++j) y[i * h + j] = (r[i * h + j] - mu) / std::sqrt(var + 1e-5) * w.values()[j] + b.values()[j];
  }
  EXPECT_EQ(out[1].values(), r);
  expect_close(out[0].values(), y, 8 * kF32Eps, 1e-5, "y");
}

// The contract's rotation of one head vector x (D values) at table row p.
std::vector<double> rotate_reference(const std::vector<double>& x, const std::vector<double>& cos, const std::vector<double>& sin,
                                     int64_t p, int64_t r, bool interleaved) {
  std::vector<double> out = x;
  for (int64_t i = 0; i < r / 2; ++i) {
    const int64_t i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + r / 2;
    const double c = cos[p * (r / 2) + i], s = sin[p * (r / 2) + i];
    out[i1] = x[i1] * c - x[i2] * s;
    out[i2] = x[i2] * c + x[i1] * s;
  }
  return out;
}

// Applies rotate_reference to every head vector of a tensor with one position per token.
std::vector<double> rope_reference(const Operand& t, const std::vector<int64_t>& positions, const Operand& cos,
                                   const Operand& sin, int64_t r, bool interleaved) {
  const int64_t d = t.shape.back(), heads = t.shape[t.shape.size() - 2];
  const auto v = t.values();
  std::vector<double> out;
  for (std::size_t tok = 0; tok < positions.size(); ++tok)
    for (int64_t h = 0; h < heads; ++h) {
      const auto first = v.begin() + (static_cast<int64_t>(tok) * heads + h) * d;
      const auto rot = rotate_reference(std::vector<double>(first, first + d), cos.values(), sin.values(), positions[tok], r, interleaved);
      out.insert(out.end(), rot.begin(), rot.end());
    }
  return out;
}

TEST(TorchRope, SplitHalfPartialRotaryWithPositions) {
  TorchHost host;
  const int64_t t = 3, h = 2, d = 8, r = 4, p = 10;
  const Operand q = Operand::of("q", OPCERT_DTYPE_F32, {t, h, d}, pseudo_random(t * h * d, -1, 1, 61));
  const Operand cos = Operand::of("cos", OPCERT_DTYPE_F32, {p, r / 2}, pseudo_random(p * r / 2, -1, 1, 62));
  const Operand sin = Operand::of("sin", OPCERT_DTYPE_F32, {p, r / 2}, pseudo_random(p * r / 2, -1, 1, 63));
  const Operand pos = Operand::of("positions", OPCERT_DTYPE_I32, {t}, {7, 0, 9});
  std::vector<Operand> out{Operand::output("q_out", OPCERT_DTYPE_F32, {t, h, d})};
  ASSERT_EQ(host.run("torch.rope.native", {q, cos, sin, pos}, out, {Attr::integer("rotary_dim", r)}).message, "");
  expect_close(out[0].values(), rope_reference(q, {7, 0, 9}, cos, sin, r, false), 4 * kF32Eps, 1e-7, "q_out");
}

TEST(TorchRope, InterleavedBshdWithKeyAndImplicitPositions) {
  TorchHost host;
  const int64_t b = 2, s = 3, hq = 2, hk = 1, d = 4, p = 3;
  const Operand q = Operand::of("q", OPCERT_DTYPE_BF16, {b, s, hq, d}, pseudo_random(b * s * hq * d, -1, 1, 64));
  const Operand k = Operand::of("k", OPCERT_DTYPE_BF16, {b, s, hk, d}, pseudo_random(b * s * hk * d, -1, 1, 65));
  const Operand cos = Operand::of("cos", OPCERT_DTYPE_F32, {p, d / 2}, pseudo_random(p * d / 2, -1, 1, 66));
  const Operand sin = Operand::of("sin", OPCERT_DTYPE_F32, {p, d / 2}, pseudo_random(p * d / 2, -1, 1, 67));
  std::vector<Operand> out{Operand::output("q_out", OPCERT_DTYPE_BF16, {b, s, hq, d}), Operand::output("k_out", OPCERT_DTYPE_BF16, {b, s, hk, d})};
  ASSERT_EQ(host.run("torch.rope.native", {q, k, cos, sin}, out, {Attr::text("style", "interleaved")}).message, "");
  const std::vector<int64_t> positions{0, 1, 2, 0, 1, 2};  // each token's index within its sequence
  expect_close(out[0].values(), rope_reference(q, positions, cos, sin, d, true), kBf16Eps, 1e-6, "q_out");
  expect_close(out[1].values(), rope_reference(k, positions, cos, sin, d, true), kBf16Eps, 1e-6, "k_out");
}

TEST(TorchRope, PositionOutsideTheTableIsAnError) {
  TorchHost host;
  const Operand q = Operand::of("q", OPCERT_DTYPE_F32, {1, 1, 2}, {1, 2});
  const Operand cos = Operand::of("cos", OPCERT_DTYPE_F32, {2, 1}, {1, 1});
  const Operand sin = Operand::of("sin", OPCERT_DTYPE_F32, {2, 1}, {0, 0});
  const Operand pos = Operand::of("positions", OPCERT_DTYPE_I32, {1}, {2});
  std::vector<Operand> out{Operand::output("q_out", OPCERT_DTYPE_F32, {1, 1, 2})};
  const Outcome run = host.run("torch.rope.native", {q, cos, sin, pos}, out);
  EXPECT_EQ(run.code, OPCERT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(run.message, "positions[0] = 2 is outside [0, P) = [0, 2)");
}

TEST(TorchSoftmax, Fp32RowsWithNanInfAndAllMinusInf) {
  TorchHost host;
  const double inf = INFINITY;
  const Operand x = Operand::of("x", OPCERT_DTYPE_F32, {4, 3}, {1, 2, 3, 1, NAN, 3, -inf, -inf, -inf, 0, inf, 1});
  std::vector<Operand> out{Operand::output("y", OPCERT_DTYPE_F32, {4, 3})};
  ASSERT_EQ(host.run("torch.softmax.native", {x}, out).message, "");
  const double z = std::exp(-2.0) + std::exp(-1.0) + 1;
  expect_close(out[0].values(), {std::exp(-2.0) / z, std::exp(-1.0) / z, 1 / z, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN},
               4 * kF32Eps, 0, "y");
}

TEST(TorchSoftmax, Fp16ThreeDimensional) {
  TorchHost host;
  const Operand x = Operand::of("x", OPCERT_DTYPE_F16, {2, 2, 5}, pseudo_random(20, -4, 4, 68));
  std::vector<Operand> out{Operand::output("y", OPCERT_DTYPE_F16, {2, 2, 5})};
  ASSERT_EQ(host.run("torch.softmax.native", {x}, out).message, "");
  const auto v = x.values();
  std::vector<double> want(20);
  for (int r = 0; r < 4; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int i = 0; i < 5; ++i) mx = std::max(mx, v[r * 5 + i]);
    for (int i = 0; i < 5; ++i) sum += std::exp(v[r * 5 + i] - mx);
    for (int i = 0; i < 5; ++i) want[r * 5 + i] = std::exp(v[r * 5 + i] - mx) / sum;
  }
  expect_close(out[0].values(), want, kF16Eps, 1e-7, "y");
}

}  // namespace
}  // namespace opcert::torch_test
