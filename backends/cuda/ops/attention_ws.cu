// cuda.attention.warpspec: the attention forward (docs/OPS.md "attention") on FlashAttention-3's
// Hopper structure (attention_ws_kernel.cuh: a TMA producer warpgroup, an mbarrier ring of K/V
// stages, consumer warpgroups taking turns at wgmma). The call is read by the SDK's
// parse_attention, checked against the kernels' shared limits (attention_call.h) and the Hopper
// keys' conditions (attention_hopper_support.h), then against what TMA needs here: BSHD (its 4-d
// tensor maps end each sequence), byte strides below 2^40 and at least one key. Everything else is
// declined with the reason (cuda.attention.wgmma takes varlen; cuda.attention.flash the rest).
#include <opcert/sdk/checked_implementation.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "ops/attention_call.h"
#include "ops/attention_hopper_support.h"
#include "ops/attention_params.h"
#include "ops/attention_ws_kernel.cuh"

namespace opcert::cuda {
namespace {

using attn::AttentionOperands;
using attn::Dtype;

constexpr const char* kKey = "cuda.attention.warpspec";

/// The shared limits, the Hopper keys' conditions, then TMA's.
sdk::Support support(const CudaContext& ctx, const AttentionOperands& a) {
  if (const sdk::Support shared = attn::kernel_limits(a); !shared.supported) return shared;
  if (const sdk::Support hopper =
          attn::hopper_kernel_support(ctx, a, {kKey, attn::ws_kernel_bf16, attn::ws_kernel_fp16, attn::ws_smem_bytes});
      !hopper.supported)
    return hopper;
  return attn::tma_limits(a, kKey);
}

void run(CudaContext& ctx, const AttentionOperands& a) {
  if (a.tq == 0 || a.batch == 0) return;  // no query: o and lse are empty
  const attn::Params p = attn::params_of(a);
  if (attn::dtype_of(a) == Dtype::bf16) attn::launch_ws_bf16(p, ctx.sms(), ctx.tile_counters(), ctx.stream);
  else attn::launch_ws_fp16(p, ctx.sms(), ctx.tile_counters(), ctx.stream);
}

}  // namespace

namespace attn {

int ws_smem_bytes(int d) {
  switch (d) {
    case 64: return std::max({WsD64Tall::kSmemBytes, WsD64::kSmemBytes, WsD64Persistent::kSmemBytes});
    case 128: return std::max({WsD128Wide::kSmemBytes, WsD128::kSmemBytes, WsD128Persistent::kSmemBytes});
    default: return 0;
  }
}

sdk::Implementation warpspec_implementation(CudaContext& ctx) {
  return sdk::checked_implementation(
      {kKey, "attention",
       "FlashAttention-3 forward structure on Hopper (sm_90a): a producer warpgroup issuing TMA copies of K and V "
       "into an mbarrier-guarded ring, register reallocation (setmaxnreg), consumer warpgroups ping-ponging at the "
       "tensor cores with the P·V product overlapping the next softmax; fp16/bf16 with D 64/128, BSHD, causal, "
       "window, GQA/MQA, lse. Compute capability 9.x only",
       OPCERT_DEVICE_CUDA},
      sdk::parse_attention, [&ctx](const AttentionOperands& a) { run(ctx, a); },
      [&ctx](const AttentionOperands& a) { return support(ctx, a); });
}

}  // namespace attn
}  // namespace opcert::cuda
