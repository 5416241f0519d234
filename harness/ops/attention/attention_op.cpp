// attention's entry in the op table.
#include "ops/attention/attention.h"
#include "opkit/op_registry.h"

namespace opcert::ops::attention {
namespace {

const OpDescriptor kAttention{
    .name = names::kOp,
    .family = OpFamily::kCompute,
    .order = 50,
    .summary = "scaled dot-product attention: BSHD or varlen, causal, GQA/MQA, window",
    .params = parameters,
    .build = build_case,
    .tolerance = derive_tolerance,
    .work = work,
};

}  // namespace

OPCERT_REGISTER_OP(kAttention)

}  // namespace opcert::ops::attention
