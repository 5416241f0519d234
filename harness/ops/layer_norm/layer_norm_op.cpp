// layer_norm's entry in the op table.
#include "ops/layer_norm/layer_norm.h"
#include "opkit/op_registry.h"

namespace opcert::ops::layer_norm {
namespace {

const OpDescriptor kLayerNorm{
    .name = names::kOp,
    .family = OpFamily::kCompute,
    .order = 70,
    .summary = "LayerNorm with optional weight/bias and fused residual add",
    .params = parameters,
    .build = build_case,
    .tolerance = derive_tolerance,
    .work = work,
};

}  // namespace

OPCERT_REGISTER_OP(kLayerNorm)

}  // namespace opcert::ops::layer_norm
