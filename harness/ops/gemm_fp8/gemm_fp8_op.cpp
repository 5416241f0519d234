// gemm_fp8's entry in the op table.
#include "ops/gemm_fp8/gemm_fp8.h"
#include "opkit/op_registry.h"

namespace opcert::ops::gemm_fp8 {
namespace {

const OpDescriptor kGemmFp8{
    .name = names::kOp,
    .family = OpFamily::kCompute,
    .order = 20,
    .summary = "scaled fp8 GEMM (e4m3/e5m2; per-tensor, per-token x per-channel, block scales)",
    .params = parameters,
    .build = build_case,
    .tolerance = derive_tolerance,
    .work = work,
};

}  // namespace

OPCERT_REGISTER_OP(kGemmFp8)

}  // namespace opcert::ops::gemm_fp8
