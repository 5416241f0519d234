#include "naive_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "model/dtype.h"
#include "model/scalar_codec.h"
#include "tf32_rounding.h"

namespace opcert::mutants {
namespace {

using sdk::Tensor;

double ld(const Tensor& t, int64_t i) {
  const auto dtype = static_cast<opcert_dtype>(t.dtype());
  return load_from(dtype, t.data<char>() + i * static_cast<int64_t>(dtype_bytes(dtype)));
}

// `v` rounded into `dtype` the way a rounding defect does; unchanged otherwise (store_as then
// rounds to nearest even, and leaves a value the defect already rounded as it is).
double misrounded(opcert_dtype dtype, double v, Defect defect) {
  if (!std::isfinite(v) || (defect != Defect::kTruncatedOutput && defect != Defect::kHalfAwayOutput && defect != Defect::kOddOutput))
    return v;
  const double spacing = grid_spacing(dtype, v), a = std::fabs(v);
  const double lo = std::floor(a / spacing) * spacing, hi = lo + spacing;
  double r = a;
  if (lo != a) {
    if (defect == Defect::kTruncatedOutput) r = lo;
    else if (defect == Defect::kHalfAwayOutput) r = a - lo >= hi - a ? hi : lo;
    else r = std::fmod(lo / spacing, 2.0) == 1.0 ? lo : hi;
  }
  return std::copysign(r, v);
}

// fp8 attention: the factor of descale [B, Hkv] for batch entry b and KV head g; 1 when not given.
double descale_of(const std::optional<Tensor>& descale, int64_t b, int64_t g, int64_t hkv) {
  return descale ? ld(*descale, b * hkv + g) : 1.0;
}

// Does the tensor hold a NaN or an infinity anywhere?
bool any_non_finite(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(ld(t, i))) return true;
  return false;
}

void st(const Tensor& t, int64_t i, double v, Defect defect = Defect::kNone) {
  const auto dtype = static_cast<opcert_dtype>(t.dtype());
  store_as(dtype, misrounded(dtype, v, defect), t.data<char>() + i * static_cast<int64_t>(dtype_bytes(dtype)));
}

}  // namespace

void gemm(const sdk::GemmOperands& g, Defect defect) {
  const Tensor &a = *g.a, &b = *g.b, &c = *g.c;
  const auto& bias = g.bias;
  const bool kn = g.b_layout == sdk::BLayout::kKN && defect != Defect::kLayoutIgnored;
  const int64_t M = g.m, K = g.k, N = g.n;
  const bool add_bias = bias && defect != Defect::kBiasDropped;
  const auto input = [defect](double v) {
    if (defect == Defect::kTf32Inputs) return test::round_to_tf32(v);
    if (defect == Defect::kBf16Inputs) return round_to(OPCERT_DTYPE_BF16, v);
    return v;
  };
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0.0;
      for (int64_t k = 0; k < K; ++k) {
        s += input(ld(a, m * K + k)) * input(ld(b, kn ? k * N + n : n * K + k));
        if (defect == Defect::kBf16Accumulation) s = round_to(OPCERT_DTYPE_BF16, s);
      }
      st(c, m * N + n, s + (add_bias ? ld(*bias, n) : 0.0), defect);
    }
  if (defect == Defect::kWritePastEnd) st(c, M * N, 0.0);
  if (defect == Defect::kNanSpread && (any_non_finite(a) || any_non_finite(b)))
    for (int64_t i = 0; i < M * N; ++i) st(c, i, std::numeric_limits<double>::quiet_NaN());
}

void gemm_fp8(const sdk::GemmFp8Operands& g, Defect defect) {
  const Tensor &a = *g.a, &b = *g.b, &sa = *g.a_scale, &sb = *g.b_scale, &c = *g.c;
  const auto& bias = g.bias;
  const int64_t M = g.m, K = g.k, N = g.n, block = g.block;
  const int64_t kb_count = (K + block - 1) / block, nb_count = (N + block - 1) / block;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double total = 0.0;
      for (int64_t kb = 0; kb < kb_count; ++kb) {
        double s = 0.0;
        for (int64_t k = kb * block; k < std::min(K, (kb + 1) * block); ++k) s += ld(a, m * K + k) * ld(b, n * K + k);
        double scale_a = 1.0, scale_b = 1.0;
        // K / block full blocks, the partial one's scales read from the last full block.
        const int64_t kb_scale = defect == Defect::kPartialBlockScale && K >= block ? std::min(kb, K / block - 1) : kb;
        if (g.scaling == sdk::Fp8Scaling::kTensor) {
          scale_a = ld(sa, 0);
          scale_b = ld(sb, 0);
        } else if (g.scaling == sdk::Fp8Scaling::kChannel) {
          scale_a = ld(sa, m);
          scale_b = ld(sb, n);
        } else {
          scale_a = ld(sa, m * kb_count + kb_scale);
          scale_b = defect == Defect::kBlockScaleTransposed ? ld(sb, kb * nb_count + n / block)
                                                            : ld(sb, (n / block) * kb_count + kb_scale);
        }
        if (defect == Defect::kScaleDropped) scale_b = 1.0;
        total += scale_a * scale_b * s;
      }
      st(c, m * N + n, total + (bias && defect != Defect::kBiasDropped ? ld(*bias, n) : 0.0), defect);
    }
}

void gemm_int8(const sdk::GemmInt8Operands& g, Defect defect) {
  const Tensor &a = *g.a, &b = *g.b, &c = *g.c;
  const auto &sa = g.a_scale, &sb = g.b_scale, &bias = g.bias;
  const int64_t M = g.m, K = g.k, N = g.n;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0.0;
      for (int64_t k = 0; k < K; ++k) {
        acc += ld(a, m * K + k) * ld(b, n * K + k);
        if (defect == Defect::kInt16Accumulation) acc = std::clamp(acc, -32768.0, 32767.0);
        if (defect == Defect::kFp32Accumulation) acc = round_to(OPCERT_DTYPE_F32, acc);
      }
      if (!g.dequantize) {
        st(c, m * N + n, acc);
        continue;
      }
      const double scale_a = defect == Defect::kScaleDropped ? 1.0 : ld(*sa, m);
      if (defect == Defect::kRoundedBeforeScale) acc = round_to(static_cast<opcert_dtype>(c.dtype()), acc);
      st(c, m * N + n, scale_a * ld(*sb, n) * acc + (bias && defect != Defect::kBiasDropped ? ld(*bias, n) : 0.0), defect);
    }
}

void quantize(const sdk::QuantizeOperands& g, Defect defect) {
  const Tensor &x = *g.x, &q = *g.q, &scale = *g.scale;
  const int64_t M = g.m, K = g.k;
  const bool per_tensor = g.granularity == sdk::QuantGranularity::kTensor;
  const double qmax_q = sdk::quantize_qmax(q.dtype());
  double qmax = qmax_q;
  if (defect == Defect::kWrongQuantMax && q.dtype() == OPCERT_DTYPE_I8) qmax = 128.0;
  const auto row_amax = [&](int64_t first, int64_t last) {
    double amax = 0.0;
    for (int64_t i = first; i < last; ++i) amax = std::max(amax, std::fabs(ld(x, i)));
    return amax;
  };
  const int64_t groups = per_tensor ? 1 : M, span = per_tensor ? M * K : K;
  const bool tensor_amax = per_tensor || defect == Defect::kWrongGranularity;
  for (int64_t g = 0; g < groups; ++g) {
    const double amax = tensor_amax ? row_amax(0, M * K) : row_amax(g * span, (g + 1) * span);
    const double s = round_to(OPCERT_DTYPE_F32, amax / qmax);
    st(scale, g, s);
    for (int64_t i = g * span; i < (g + 1) * span; ++i)
      st(q, i, s == 0.0 ? 0.0 : std::clamp(ld(x, i) / s, -qmax_q, qmax_q), defect);
  }
}

sdk::Support attention_limits(const sdk::AttentionOperands& a) {
  if (a.varlen()) return sdk::Support::no("the naive attention takes BSHD only, not varlen");
  return sdk::Support::yes();
}

void attention(const sdk::AttentionOperands& a, Defect defect) {
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.o;
  const auto& lse = a.lse;
  const int64_t B = a.batch, Sq = a.sq, Hq = a.hq, D = a.d, Skv = a.skv, Hkv = a.hkv;
  const double scale = defect == Defect::kScaleIgnored ? 1.0 : a.scale;
  const bool causal = a.causal;
  const int64_t window = a.window_left, group = a.group();
  const bool descaled = defect != Defect::kDescaleIgnored;
  const auto& v_descale = defect == Defect::kVDescaleFromK ? a.k_descale : a.v_descale;
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t kvh = defect == Defect::kWrongGqaMapping ? h % Hkv : h / group;
      // Dequantized exactly in fp64 (fp8 codes times their group's descale); 1 for other dtypes.
      const double qd = descaled ? descale_of(a.q_descale, bi, kvh, Hkv) : 1.0;
      const double kd = descaled ? descale_of(a.k_descale, bi, kvh, Hkv) : 1.0;
      const double vd = descaled ? descale_of(v_descale, bi, kvh, Hkv) : 1.0;
      for (int64_t i = 0; i < Sq; ++i) {
        const int64_t diagonal = defect == Defect::kCausalTopLeft ? i : i + Skv - Sq + (defect == Defect::kCausalOffByOne ? 1 : 0);
        const int64_t narrower = defect == Defect::kWindowOffByOne ? 1 : 0;
        std::vector<double> s;
        std::vector<int64_t> keys;
        for (int64_t j = 0; j < Skv; ++j) {
          if (causal && j > diagonal) continue;
          if (window >= 0 && j < i + Skv - Sq - window + narrower) continue;
          double dot = 0.0;
          for (int64_t d = 0; d < D; ++d)
            dot += ld(q, ((bi * Sq + i) * Hq + h) * D + d) * qd * ld(k, ((bi * Skv + j) * Hkv + kvh) * D + d) * kd;
          s.push_back(scale * dot);
          keys.push_back(j);
        }
        const double mx = s.empty() ? 0.0 : *std::max_element(s.begin(), s.end());
        double sum = 0.0;
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0.0;
          for (std::size_t j = 0; j < keys.size(); ++j) acc += s[j] / sum * ld(v, ((bi * Skv + keys[j]) * Hkv + kvh) * D + d) * vd;
          st(o, ((bi * Sq + i) * Hq + h) * D + d, acc, defect);
        }
        if (lse) st(*lse, (bi * Hq + h) * Sq + i, keys.empty() ? -std::numeric_limits<double>::infinity() : mx + std::log(sum));
      }
    }
}

sdk::Support norm_limits(const sdk::NormOperands& n) {
  if (n.residual) return sdk::Support::no("the naive norms take no residual");
  return sdk::Support::yes();
}

void norm(const sdk::NormOperands& n, Defect defect) {
  const Tensor &x = *n.x, &y = *n.y;
  const auto &w = n.weight, &bias = n.bias;
  const bool centred = n.kind == sdk::NormKind::kLayer;
  double eps = n.eps;
  if (defect == Defect::kWrongEps) eps *= 10.0;
  const int64_t T = n.t, H = n.h;
  const bool one_short = defect == Defect::kMeanOffByOne || defect == Defect::kUnbiasedVariance;
  const double divisor = static_cast<double>(one_short ? H - 1 : H);
  const bool weighted = w && defect != Defect::kWeightDropped;
  for (int64_t t = 0; t < T; ++t) {
    double mean = 0.0, sq = 0.0;
    for (int64_t h = 0; h < H; ++h) mean += ld(x, t * H + h) / static_cast<double>(H);
    if (!centred) mean = 0.0;
    for (int64_t h = 0; h < H; ++h) sq += std::pow(ld(x, t * H + h) - mean, 2) / divisor;
    for (int64_t h = 0; h < H; ++h)
      st(y, t * H + h,
         (ld(x, t * H + h) - mean) / std::sqrt(sq + eps) * (weighted ? ld(*w, h) : 1.0) + (bias ? ld(*bias, h) : 0.0), defect);
  }
}

void rope(const sdk::RopeOperands& r, Defect defect) {
  const Tensor &cos = *r.cos, &sin = *r.sin;
  const auto& positions = r.positions;
  const bool interleaved = (r.style == sdk::RopeStyle::kInterleaved) != (defect == Defect::kWrongStyle);
  const bool use_positions = positions && defect != Defect::kPositionsIgnored;
  for (const auto& [x, out] : {std::pair{r.q, r.q_out}, std::pair{r.k, r.k_out}}) {
    if (!x) continue;
    const int64_t D = r.head_dim, H = x->dim(-2), R = r.rotary_dim, half = r.half();
    const int64_t tokens = r.tokens, S = r.seq_len;
    for (int64_t tok = 0; tok < tokens; ++tok) {
      const auto p = static_cast<int64_t>(use_positions ? ld(*positions, tok) : static_cast<double>(tok % S));
      for (int64_t h = 0; h < H; ++h) {
        const int64_t base = (tok * H + h) * D;
        for (int64_t d = R; d < D; ++d) st(*out, base + d, ld(*x, base + d));
        for (int64_t i = 0; i < half; ++i) {
          const int64_t i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + half;
          const double x1 = ld(*x, base + i1), x2 = ld(*x, base + i2);
          if (defect == Defect::kMissingRotaryPair && i == half - 1) {
            st(*out, base + i1, x1);
            st(*out, base + i2, x2);
            continue;
          }
          const double c = ld(cos, p * half + i), s = ld(sin, p * half + i);
          st(*out, base + i1, x1 * c - x2 * s, defect);
          st(*out, base + i2, x2 * c + x1 * s, defect);
        }
      }
    }
  }
}

void softmax(const sdk::SoftmaxOperands& s, Defect defect) {
  const Tensor &x = *s.x, &y = *s.y;
  const int64_t N = s.n, rows = s.rows;
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (int64_t i = 0; i < N; ++i) mx = std::max(mx, ld(x, r * N + i));
    const int64_t summed = defect == Defect::kLastDropped ? N - 1 : N;
    // oneDNN 2.6's bf16 softmax keeps exp(x - max) in the output dtype between its passes.
    const auto e = [&](int64_t i) {
      const double v = std::exp(ld(x, r * N + i) - mx);
      return defect == Defect::kExpRounded ? round_to(static_cast<opcert_dtype>(y.dtype()), v) : v;
    };
    bool non_finite_row = false;
    for (int64_t i = 0; i < N; ++i) non_finite_row = non_finite_row || std::isnan(ld(x, r * N + i)) || ld(x, r * N + i) == std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < summed; ++i) sum += e(i);
    for (int64_t i = 0; i < N; ++i)
      st(y, r * N + i, defect == Defect::kNonFiniteRowsZeroed && non_finite_row ? 0.0 : e(i) / sum, defect);
  }
  if (defect == Defect::kWritePastEnd) st(y, rows * N, 0.5);
  if (defect == Defect::kNanSpread && any_non_finite(x))
    for (int64_t i = 0; i < rows * N; ++i) st(y, i, std::numeric_limits<double>::quiet_NaN());
}

}  // namespace opcert::mutants
