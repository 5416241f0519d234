// rms_norm: y = r / sqrt(mean(r^2) + eps) * weight, r = round(x + residual) or x
// (docs/OPS.md#rms_norm).
#include "reference/ops/norm_common.h"
#include "reference/ops/ops.h"

namespace opcert::reference_detail {

std::vector<ReferenceOutput> rms_norm_reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  return norm_reference(c, inputs, plan, NormKind::kRms, 1e-6);
}

}  // namespace opcert::reference_detail
