// gemm's entry in the op table.
#include "ops/gemm/gemm.h"
#include "opkit/op_registry.h"

namespace opcert::ops::gemm {
namespace {

const OpDescriptor kGemm{
    .name = names::kOp,
    .family = OpFamily::kCompute,
    .order = 10,
    .summary = "C = A B^T (+ bias); fp32/fp16/bf16, fp32 accumulate",
    .params = parameters,
    .build = build_case,
    .tolerance = derive_tolerance,
    .work = work,
};

}  // namespace

OPCERT_REGISTER_OP(kGemm)

}  // namespace opcert::ops::gemm
