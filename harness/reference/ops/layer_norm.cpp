// layer_norm: y = (r - mu) / sqrt(var + eps) * weight + bias, biased variance, r as in rms_norm
// (docs/OPS.md#layer_norm).
#include "reference/ops/norm_common.h"
#include "reference/ops/ops.h"

namespace opcert::reference_detail {

std::vector<ReferenceOutput> layer_norm_reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  return norm_reference(c, inputs, plan, NormKind::kLayer, 1e-5);
}

}  // namespace opcert::reference_detail
