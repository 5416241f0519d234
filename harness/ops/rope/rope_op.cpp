// rope's entry in the op table.
#include "ops/rope/rope.h"
#include "opkit/op_registry.h"

namespace opcert::ops::rope {
namespace {

const OpDescriptor kRope{
    .name = names::kOp,
    .family = OpFamily::kCompute,
    .order = 80,
    .summary = "rotary position embedding, interleaved or split-half, partial rotary dim",
    .params = parameters,
    .build = build_case,
    .tolerance = derive_tolerance,
    .work = work,
};

}  // namespace

OPCERT_REGISTER_OP(kRope)

}  // namespace opcert::ops::rope
