// quantize: scale = amax / qmax, q = clamp(x / scale, -qmax, qmax) (docs/OPS.md#quantize).
// q is the ideal unrounded quotient, taken with the fp32-rounded scale a backend holds; the
// comparison rounds it into the q dtype and allows one code at rounding boundaries. scale:
// amax / qmax. magnitude = |value|; no condition.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/attr.h"
#include "model/scalar_codec.h"
#include "ops/quantize/quantize.h"
#include "reference/reference_support.h"

namespace opcert::ops::quantize {
namespace {

using namespace reference_detail;

double qmax_of(opcert_dtype q) {
  switch (q) {
    case OPCERT_DTYPE_I8: return 127.0;
    case OPCERT_DTYPE_F8_E4M3FN: return 448.0;
    case OPCERT_DTYPE_F8_E5M2: return 57344.0;
    default: throw std::invalid_argument("quantize: output 'q' must be int8, fp8_e4m3fn or fp8_e5m2");
  }
}

// The block of q for rows x ([n, K]) given each row's exact scale ([n]).
RowBlock quotient(const at::Tensor& x, const at::Tensor& exact_scale, double qmax) {
  at::Tensor held = exact_scale.clone();  // the fp32 scale the backend stores
  round_in_place(held, OPCERT_DTYPE_F32);
  at::Tensor held_col = held.unsqueeze(1);
  at::Tensor q = at::clamp(x / held_col, -qmax, qmax).masked_fill(held_col == 0, 0.0);
  return {q, q.abs(), at::Tensor()};
}

RowBlock scale_block(const at::Tensor& exact_scale) {
  const at::Tensor s = exact_scale.unsqueeze(1);
  return {s, s.abs(), at::Tensor()};
}

at::Tensor row_amax(const at::Tensor& x) {
  if (x.size(1) == 0) return at::zeros({x.size(0)}, at::kDouble);
  return x.abs().amax(1);
}

std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  const HostTensor& x = require_input(inputs, c.op, names::kX);
  require_rank(x, c.op, 2);
  const int64_t m = x.spec.shape[0];
  const int64_t k = x.spec.shape[1];
  const TensorSpec& q_spec = require_output(c, names::kQ);
  const TensorSpec& scale_spec = require_output(c, names::kScale);
  if (q_spec.shape != x.spec.shape) throw std::invalid_argument("quantize: output 'q' must have the shape of 'x'");
  const double qmax = qmax_of(q_spec.dtype);
  const std::string granularity = attr_string(c.attrs, names::kGranularity, "token");
  const auto* q_sample = sampled(plan, names::kQ, m * k);

  if (granularity == "token") {
    if (scale_spec.shape != std::vector<int64_t>{m}) throw std::invalid_argument("quantize: output 'scale' must be [M]");
    const auto* s_sample = sampled(plan, names::kScale, m);
    const std::vector<int64_t> rows = merge_rows(rows_needed(q_sample, k, m), rows_needed(s_sample, 1, m));
    RowCollector q_out(rows, k, false, q_sample);
    RowCollector s_out(rows, 1, false, s_sample);
    for_row_chunks(rows, k, [&](int64_t first, std::span<const int64_t> chunk) {
      const at::Tensor xr = gather_rows(x, k, chunk);
      const at::Tensor exact_scale = row_amax(xr) / qmax;
      q_out.put_range(first, quotient(xr, exact_scale, qmax));
      s_out.put_range(first, scale_block(exact_scale));
    });
    return {q_out.emit(names::kQ, m * k), s_out.emit(names::kScale, m)};
  }
  if (granularity != "tensor")
    throw std::invalid_argument("quantize: granularity must be \"token\" or \"tensor\", got \"" + granularity + "\"");
  if (scale_spec.shape != std::vector<int64_t>{1}) throw std::invalid_argument("quantize: output 'scale' must be [1]");

  const Decoder decode(x);
  double amax = 0.0;
  for (int64_t i = 0; i < m * k; ++i) amax = std::max(amax, std::fabs(decode(i)));
  const at::Tensor exact_scale = at::full({1}, amax / qmax, at::kDouble);
  RowCollector s_out({0}, 1, false, sampled(plan, names::kScale, 1));
  s_out.put_range(0, scale_block(exact_scale));

  const std::vector<int64_t> rows = rows_needed(q_sample, k, m);
  RowCollector q_out(rows, k, false, q_sample);
  for_row_chunks(rows, k, [&](int64_t first, std::span<const int64_t> chunk) {
    const at::Tensor xr = gather_rows(x, k, chunk);
    q_out.put_range(first, quotient(xr, exact_scale.expand({xr.size(0)}), qmax));
  });
  return {q_out.emit(names::kQ, m * k), s_out.emit(names::kScale, 1)};
}

}  // namespace

OPCERT_REGISTER_REFERENCE(names::kOp, reference)

}  // namespace opcert::ops::quantize
