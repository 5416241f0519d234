#include "naive_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "check/tf32_rounding.h"
#include "model/dtype.h"
#include "model/scalar_codec.h"

namespace opcert::mutants {
namespace {

using sdk::OpCall;
using sdk::Tensor;

double ld(const Tensor& t, int64_t i) {
  const auto dtype = static_cast<opcert_dtype>(t.dtype());
  return load_from(dtype, t.data<char>() + i * static_cast<int64_t>(dtype_bytes(dtype)));
}

void st(const Tensor& t, int64_t i, double v) {
  const auto dtype = static_cast<opcert_dtype>(t.dtype());
  store_as(dtype, v, t.data<char>() + i * static_cast<int64_t>(dtype_bytes(dtype)));
}

double qmax_of(int32_t dtype) {
  return dtype == OPCERT_DTYPE_I8 ? 127.0 : dtype == OPCERT_DTYPE_F8_E4M3FN ? 448.0 : 57344.0;
}

}  // namespace

void gemm(const OpCall& call, Defect defect) {
  const Tensor a = call.input("a"), b = call.input("b"), c = call.output("c");
  const auto bias = call.find_input("bias");
  const bool kn = call.get_string("b_layout", "nk") == "kn";
  const int64_t M = a.dim(0), K = a.dim(1), N = c.dim(1);
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
      st(c, m * N + n, s + (bias ? ld(*bias, n) : 0.0));
    }
  if (defect == Defect::kWritePastEnd) st(c, M * N, 0.0);
}

void gemm_fp8(const OpCall& call, Defect defect) {
  const Tensor a = call.input("a"), b = call.input("b"), sa = call.input("a_scale"), sb = call.input("b_scale");
  const Tensor c = call.output("c");
  const auto bias = call.find_input("bias");
  const std::string scaling = call.get_string("scaling", "tensor");
  const int64_t M = a.dim(0), K = a.dim(1), N = b.dim(0), block = 128;
  const int64_t kb_count = (K + block - 1) / block, nb_count = (N + block - 1) / block;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double total = 0.0;
      for (int64_t kb = 0; kb < kb_count; ++kb) {
        double s = 0.0;
        for (int64_t k = kb * block; k < std::min(K, (kb + 1) * block); ++k) s += ld(a, m * K + k) * ld(b, n * K + k);
        double scale_a = 1.0, scale_b = 1.0;
        if (scaling == "tensor") {
          scale_a = ld(sa, 0);
          scale_b = ld(sb, 0);
        } else if (scaling == "channel") {
          scale_a = ld(sa, m);
          scale_b = ld(sb, n);
        } else {
          scale_a = ld(sa, m * kb_count + kb);
          scale_b = defect == Defect::kBlockScaleTransposed ? ld(sb, kb * nb_count + n / block)
                                                            : ld(sb, (n / block) * kb_count + kb);
        }
        if (defect == Defect::kScaleDropped) scale_b = 1.0;
        total += scale_a * scale_b * s;
      }
      st(c, m * N + n, total + (bias ? ld(*bias, n) : 0.0));
    }
}

void gemm_int8(const OpCall& call, Defect defect) {
  const Tensor a = call.input("a"), b = call.input("b"), c = call.output("c");
  const auto sa = call.find_input("a_scale"), sb = call.find_input("b_scale"), bias = call.find_input("bias");
  const int64_t M = a.dim(0), K = a.dim(1), N = b.dim(0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0.0;
      for (int64_t k = 0; k < K; ++k) acc += ld(a, m * K + k) * ld(b, n * K + k);
      if (c.dtype() == OPCERT_DTYPE_I32) {
        st(c, m * N + n, acc);
        continue;
      }
      const double scale_a = defect == Defect::kScaleDropped ? 1.0 : ld(*sa, m);
      st(c, m * N + n, scale_a * ld(*sb, n) * acc + (bias ? ld(*bias, n) : 0.0));
    }
}

void quantize(const OpCall& call, Defect defect) {
  const Tensor x = call.input("x"), q = call.output("q"), scale = call.output("scale");
  const int64_t M = x.dim(0), K = x.dim(1);
  const bool per_tensor = call.get_string("granularity", "token") == "tensor";
  double qmax = qmax_of(q.dtype());
  if (defect == Defect::kWrongQuantMax && q.dtype() == OPCERT_DTYPE_I8) qmax = 128.0;
  const auto row_amax = [&](int64_t first, int64_t last) {
    double amax = 0.0;
    for (int64_t i = first; i < last; ++i) amax = std::max(amax, std::fabs(ld(x, i)));
    return amax;
  };
  const int64_t groups = per_tensor ? 1 : M, span = per_tensor ? M * K : K;
  for (int64_t g = 0; g < groups; ++g) {
    const double s = round_to(OPCERT_DTYPE_F32, row_amax(g * span, (g + 1) * span) / qmax);
    st(scale, g, s);
    for (int64_t i = g * span; i < (g + 1) * span; ++i)
      st(q, i, s == 0.0 ? 0.0 : std::clamp(ld(x, i) / s, -qmax_of(q.dtype()), qmax_of(q.dtype())));
  }
}

void attention(const OpCall& call, Defect defect) {
  const Tensor q = call.input("q"), k = call.input("k"), v = call.input("v"), o = call.output("o");
  const auto lse = call.find_output("lse");
  const int64_t B = q.dim(0), Sq = q.dim(1), Hq = q.dim(2), D = q.dim(3), Skv = k.dim(1), Hkv = k.dim(2);
  const double scale = call.get_float("scale", 1.0 / std::sqrt(static_cast<double>(D)));
  const bool causal = call.get_int("causal", 0) != 0;
  const int64_t window = call.get_int("window_left", -1), group = Hq / Hkv;
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t kvh = defect == Defect::kWrongGqaMapping ? h % Hkv : h / group;
      for (int64_t i = 0; i < Sq; ++i) {
        const int64_t diagonal = i + Skv - Sq + (defect == Defect::kCausalOffByOne ? 1 : 0);
        std::vector<double> s;
        std::vector<int64_t> keys;
        for (int64_t j = 0; j < Skv; ++j) {
          if (causal && j > diagonal) continue;
          if (window >= 0 && j < i + Skv - Sq - window) continue;
          double dot = 0.0;
          for (int64_t d = 0; d < D; ++d)
            dot += ld(q, ((bi * Sq + i) * Hq + h) * D + d) * ld(k, ((bi * Skv + j) * Hkv + kvh) * D + d);
          s.push_back(scale * dot);
          keys.push_back(j);
        }
        const double mx = s.empty() ? 0.0 : *std::max_element(s.begin(), s.end());
        double sum = 0.0;
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0.0;
          for (std::size_t j = 0; j < keys.size(); ++j) acc += s[j] / sum * ld(v, ((bi * Skv + keys[j]) * Hkv + kvh) * D + d);
          st(o, ((bi * Sq + i) * Hq + h) * D + d, acc);
        }
        if (lse) st(*lse, (bi * Hq + h) * Sq + i, keys.empty() ? -std::numeric_limits<double>::infinity() : mx + std::log(sum));
      }
    }
}

namespace {

void norm(const OpCall& call, Defect defect, bool centred, double default_eps) {
  const Tensor x = call.input("x"), y = call.output("y");
  const auto w = call.find_input("weight"), bias = call.find_input("bias");
  double eps = call.get_float("eps", default_eps);
  if (defect == Defect::kWrongEps) eps *= 10.0;
  const int64_t T = x.dim(0), H = x.dim(1);
  for (int64_t t = 0; t < T; ++t) {
    double mean = 0.0, sq = 0.0;
    for (int64_t h = 0; h < H; ++h) mean += ld(x, t * H + h) / static_cast<double>(H);
    if (!centred) mean = 0.0;
    for (int64_t h = 0; h < H; ++h) sq += std::pow(ld(x, t * H + h) - mean, 2) / static_cast<double>(H);
    for (int64_t h = 0; h < H; ++h)
      st(y, t * H + h, (ld(x, t * H + h) - mean) / std::sqrt(sq + eps) * (w ? ld(*w, h) : 1.0) + (bias ? ld(*bias, h) : 0.0));
  }
}

}  // namespace

void rms_norm(const OpCall& call, Defect defect) { norm(call, defect, false, 1e-6); }
void layer_norm(const OpCall& call, Defect defect) { norm(call, defect, true, 1e-5); }

void rope(const OpCall& call, Defect defect) {
  const Tensor cos = call.input("cos"), sin = call.input("sin");
  const auto positions = call.find_input("positions");
  const bool interleaved = call.get_string("style", "split_half") == "interleaved";
  for (const char* name : {"q", "k"}) {
    const auto x = call.find_input(name);
    if (!x) continue;
    const Tensor out = call.output(std::string(name) + "_out");
    const int64_t D = x->dim(-1), H = x->dim(-2), R = call.get_int("rotary_dim", D), half = R / 2;
    const int64_t tokens = x->numel() / (H * D), S = x->ndim() == 4 ? x->dim(1) : tokens;
    for (int64_t tok = 0; tok < tokens; ++tok) {
      const auto p = static_cast<int64_t>(positions ? ld(*positions, tok) : static_cast<double>(tok % S));
      for (int64_t h = 0; h < H; ++h) {
        const int64_t base = (tok * H + h) * D;
        for (int64_t d = R; d < D; ++d) st(out, base + d, ld(*x, base + d));
        for (int64_t i = 0; i < half; ++i) {
          const int64_t i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + half;
          const double x1 = ld(*x, base + i1), x2 = ld(*x, base + i2);
          if (defect == Defect::kMissingRotaryPair && i == half - 1) {
            st(out, base + i1, x1);
            st(out, base + i2, x2);
            continue;
          }
          const double c = ld(cos, p * half + i), s = ld(sin, p * half + i);
          st(out, base + i1, x1 * c - x2 * s);
          st(out, base + i2, x2 * c + x1 * s);
        }
      }
    }
  }
}

void softmax(const OpCall& call, Defect defect) {
  const Tensor x = call.input("x"), y = call.output("y");
  const int64_t N = x.dim(-1), rows = x.numel() / N;
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (int64_t i = 0; i < N; ++i) mx = std::max(mx, ld(x, r * N + i));
    for (int64_t i = 0; i < N; ++i) sum += std::exp(ld(x, r * N + i) - mx);
    for (int64_t i = 0; i < N; ++i) st(y, r * N + i, std::exp(ld(x, r * N + i) - mx) / sum);
  }
  if (defect == Defect::kWritePastEnd) st(y, rows * N, 0.5);
}

}  // namespace opcert::mutants
