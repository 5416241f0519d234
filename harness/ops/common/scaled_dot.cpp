#include "ops/common/scaled_dot.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>

#include "reference/reference_support.h"

namespace opcert::ops::common {
namespace {

using namespace reference_detail;

int64_t block_length(const ScaledDot& p) { return p.block_k > 0 ? p.block_k : std::max<int64_t>(p.k, 1); }
int64_t block_count(const ScaledDot& p) { return (p.k + block_length(p) - 1) / block_length(p); }

// Exact dot products of the elements `flat` (m * N + n), one by one: the path that follows IEEE
// arithmetic for NaN and Inf, and the one a sample takes. A plain fp64 loop over the decoded
// rows (no tensor temporaries), parallel over the elements: a 4096-element sample of a K = 8192
// GEMM must take well under a second.
void elementwise(const ScaledDot& p, std::span<const int64_t> flat, double* values, double* magnitude) {
  const Decoder a(*p.a);
  const Decoder b(*p.b);
  const int64_t len = block_length(p);
  const int64_t blocks = block_count(p);
  const at::Tensor aw = p.a_weight.defined() ? p.a_weight.contiguous() : at::Tensor();
  const at::Tensor bw = p.b_weight.defined() ? p.b_weight.contiguous() : at::Tensor();
  const at::Tensor bias = p.bias.defined() ? p.bias.contiguous() : at::Tensor();
  const double* a_weight = aw.defined() ? aw.data_ptr<double>() : nullptr;
  const double* b_weight = bw.defined() ? bw.data_ptr<double>() : nullptr;
  const double* bias_values = bias.defined() ? bias.data_ptr<double>() : nullptr;
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(p.k, 1));
  at::parallel_for(0, static_cast<int64_t>(flat.size()), grain, [&](int64_t begin, int64_t end) {
    std::vector<double> a_row(static_cast<std::size_t>(p.k)), b_row(static_cast<std::size_t>(p.k));
    int64_t a_row_of = -1;  // a sample is sorted: its elements of one row of A come together
    for (int64_t s = begin; s < end; ++s) {
      const int64_t m = flat[static_cast<std::size_t>(s)] / p.n;
      const int64_t n = flat[static_cast<std::size_t>(s)] % p.n;
      if (m != a_row_of) a.copy(m * p.k, 1, p.k, a_row.data());
      a_row_of = m;
      if (p.b_is_kn) b.copy(n, p.n, p.k, b_row.data());
      else b.copy(n * p.k, 1, p.k, b_row.data());
      double value = 0.0, scale_of_terms = 0.0;
      for (int64_t j = 0; j < blocks; ++j) {
        double partial = 0.0, abs_partial = 0.0;
        for (int64_t k = j * len; k < std::min(p.k, (j + 1) * len); ++k) {
          const double product = a_row[static_cast<std::size_t>(k)] * b_row[static_cast<std::size_t>(k)];
          partial += product;
          abs_partial += std::fabs(product);
        }
        double w = 1.0;
        if (a_weight != nullptr) w *= a_weight[m * blocks + j];
        if (b_weight != nullptr) w *= b_weight[n * blocks + j];
        value += (a_weight != nullptr || b_weight != nullptr) ? w * partial : partial;
        scale_of_terms += std::fabs(w) * abs_partial;
      }
      if (bias_values != nullptr) {
        value += bias_values[n];
        scale_of_terms += std::fabs(bias_values[n]);
      }
      values[s] = value;
      magnitude[s] = scale_of_terms;
    }
  });
}

// Every element through BLAS in fp64, block by block; elements whose row of A or column of B
// holds a NaN or Inf are redone elementwise (BLAS kernels may skip zero operands).
void whole(const ScaledDot& p, std::vector<double>& values, std::vector<double>& magnitude) {
  const at::Tensor a = to_torch(*p.a);
  at::Tensor b = to_torch(*p.b);
  if (p.b_is_kn) b = b.t().contiguous();
  at::Tensor v = at::zeros({p.m, p.n}, at::kDouble);
  at::Tensor mag = at::zeros({p.m, p.n}, at::kDouble);
  const int64_t len = block_length(p);
  for (int64_t j = 0; j < block_count(p); ++j) {
    const int64_t width = std::min(len, p.k - j * len);
    const at::Tensor aj = a.narrow(1, j * len, width);
    const at::Tensor bj = b.narrow(1, j * len, width);
    at::Tensor dot = at::mm(aj, bj.t());
    at::Tensor abs_dot = at::mm(aj.abs(), bj.abs().t());
    at::Tensor w;
    if (p.a_weight.defined()) w = p.a_weight.select(1, j).unsqueeze(1);
    if (p.b_weight.defined()) {
      const at::Tensor bw = p.b_weight.select(1, j).unsqueeze(0);
      w = w.defined() ? w * bw : bw;
    }
    if (w.defined()) {
      dot = dot * w;
      abs_dot = abs_dot * w.abs();
    }
    v += dot;
    mag += abs_dot;
  }
  if (p.bias.defined()) {
    v += p.bias.unsqueeze(0);
    mag += p.bias.abs().unsqueeze(0);
  }
  v = v.contiguous();
  mag = mag.contiguous();
  values.assign(v.data_ptr<double>(), v.data_ptr<double>() + v.numel());
  magnitude.assign(mag.data_ptr<double>(), mag.data_ptr<double>() + mag.numel());

  const at::Tensor bad_rows = at::logical_not(at::isfinite(a).all(1)).contiguous();
  const at::Tensor bad_cols = at::logical_not(at::isfinite(b).all(1)).contiguous();
  if (!bad_rows.any().item<bool>() && !bad_cols.any().item<bool>()) return;
  const bool* row_bad = bad_rows.data_ptr<bool>();
  const bool* col_bad = bad_cols.data_ptr<bool>();
  std::vector<int64_t> redo;
  for (int64_t m = 0; m < p.m; ++m)
    for (int64_t n = 0; n < p.n; ++n)
      if (row_bad[m] || col_bad[n]) redo.push_back(m * p.n + n);
  std::vector<double> rv(redo.size()), rm(redo.size());
  elementwise(p, redo, rv.data(), rm.data());
  for (std::size_t i = 0; i < redo.size(); ++i) {
    values[static_cast<std::size_t>(redo[i])] = rv[i];
    magnitude[static_cast<std::size_t>(redo[i])] = rm[i];
  }
}

}  // namespace

ReferenceOutput scaled_dot_reference(const std::string& name, const ScaledDot& problem,
                                     const std::vector<int64_t>* sample) {
  ReferenceOutput out;
  out.name = name;
  if (sample == nullptr) {
    if (problem.m * problem.n > 0) whole(problem, out.values, out.magnitude);
    return out;
  }
  out.indices = *sample;
  out.values.resize(sample->size());
  out.magnitude.resize(sample->size());
  elementwise(problem, *sample, out.values.data(), out.magnitude.data());
  return out;
}

}  // namespace opcert::ops::common
