#include "ops/common/norm_reference.h"

#include <opcert/sdk/ops/norm.h>

#include <stdexcept>

#include "model/attr.h"
#include "reference/reference_support.h"

namespace opcert::ops::common {

namespace norm = sdk::norm_names;  // the operands' names, the SDK's

namespace {

using namespace reference_detail;

struct NormOperands {
  const HostTensor* x = nullptr;
  const HostTensor* weight = nullptr;
  const HostTensor* bias = nullptr;
  const HostTensor* residual = nullptr;
  at::Tensor w, b;  // fp64 [1, H] or undefined
};

// y for the normalised rows r ([n, H]): values and the magnitude the tolerance model scales by.
RowBlock normalise(const at::Tensor& r, const NormOperands& ops, NormKind kind, double eps) {
  at::Tensor values, magnitude;
  if (kind == NormKind::kRms) {
    const at::Tensor inv_rms = at::rsqrt(r.square().mean(1, true) + eps);
    values = r * inv_rms;
    if (ops.w.defined()) values = values * ops.w;
    magnitude = values.abs();
  } else {
    const at::Tensor mu = r.mean(1, true);
    const at::Tensor centred = r - mu;
    const at::Tensor inv_sigma = at::rsqrt(centred.square().mean(1, true) + eps);
    values = centred * inv_sigma;
    // (|r| + mean|r|) / sigma, not |r - mu| / sigma: r - mu cancels, and mu's own error is
    // relative to mean|r| (torch's CPU bf16 layer_norm holds it to about bf16 precision).
    magnitude = (r.abs() + r.abs().mean(1, true)) * inv_sigma;
    if (ops.w.defined()) {
      values = values * ops.w;
      magnitude = magnitude * ops.w.abs();
    }
    if (ops.b.defined()) {
      values = values + ops.b;
      magnitude = magnitude + ops.b.abs();
    }
  }
  return {values, magnitude, at::Tensor()};
}

}  // namespace

std::vector<ReferenceOutput> norm_reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan,
                                            NormKind kind, double default_eps) {
  NormOperands ops;
  ops.x = &require_input(inputs, c.op, norm::kX);
  require_rank(*ops.x, c.op, 2);
  const int64_t t = ops.x->spec.shape[0];
  const int64_t h = ops.x->spec.shape[1];
  ops.weight = optional_input(inputs, norm::kWeight);
  ops.residual = optional_input(inputs, norm::kResidual);
  if (kind == NormKind::kLayer) ops.bias = optional_input(inputs, norm::kBias);
  if (ops.weight != nullptr) {
    require_shape(*ops.weight, c.op, {h});
    ops.w = to_torch(*ops.weight).unsqueeze(0);
  }
  if (ops.bias != nullptr) {
    require_shape(*ops.bias, c.op, {h});
    ops.b = to_torch(*ops.bias).unsqueeze(0);
  }
  if (ops.residual != nullptr) require_shape(*ops.residual, c.op, {t, h});
  const double eps = attr_float(c.attrs, norm::kEps, default_eps);

  const TensorSpec& y_spec = require_output(c, norm::kY);
  if (y_spec.shape != ops.x->spec.shape) throw std::invalid_argument(c.op + ": output 'y' must have the shape of 'x'");
  const bool with_residual_out = ops.residual != nullptr;
  if (with_residual_out) {
    if (require_output(c, norm::kResidualOut).shape != ops.x->spec.shape)
      throw std::invalid_argument(c.op + ": output 'residual_out' must have the shape of 'x'");
  } else if (c.find_output(norm::kResidualOut) != nullptr) {
    throw std::invalid_argument(c.op + ": output 'residual_out' needs input 'residual'");
  }

  const auto* y_sample = sampled(plan, norm::kY, t * h);
  const auto* r_sample = with_residual_out ? sampled(plan, norm::kResidualOut, t * h) : nullptr;
  std::vector<int64_t> rows = rows_needed(y_sample, h, t);
  if (with_residual_out) rows = merge_rows(rows, rows_needed(r_sample, h, t));
  RowCollector y_out(rows, h, false, y_sample);
  RowCollector r_out(with_residual_out ? rows : std::vector<int64_t>{}, h, false, r_sample);

  for_row_chunks(rows, h, [&](int64_t first, std::span<const int64_t> chunk) {
    const at::Tensor x = gather_rows(*ops.x, h, chunk);
    at::Tensor r = x;
    if (with_residual_out) {
      const at::Tensor res = gather_rows(*ops.residual, h, chunk);
      const at::Tensor sum = x + res;  // exact: both addends are fp32 or narrower
      r_out.put_range(first, {sum, x.abs() + res.abs(), at::Tensor()});
      r = sum.clone();
      round_in_place(r, ops.x->spec.dtype);  // the contract normalises the rounded residual
    }
    y_out.put_range(first, normalise(r, ops, kind, eps));
  });

  std::vector<ReferenceOutput> out{y_out.emit(norm::kY, t * h)};
  if (with_residual_out) out.push_back(r_out.emit(norm::kResidualOut, t * h));
  return out;
}

}  // namespace opcert::ops::common
