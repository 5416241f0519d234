// rms_norm's entry in the op table.
#include "ops/rms_norm/rms_norm.h"
#include "opkit/op_registry.h"

namespace opcert::ops::rms_norm {
namespace {

const OpDescriptor kRmsNorm{
    .name = names::kOp,
    .family = OpFamily::kCompute,
    .order = 60,
    .summary = "RMSNorm with optional weight and fused residual add",
    .params = parameters,
    .build = build_case,
    .tolerance = derive_tolerance,
    .work = work,
};

}  // namespace

OPCERT_REGISTER_OP(kRmsNorm)

}  // namespace opcert::ops::rms_norm
