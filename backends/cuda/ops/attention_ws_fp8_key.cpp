// cuda.attention.warpspec_fp8: FlashAttention-3's fp8 forward (docs/OPS.md "attention", fp8 form)
// on the warp-specialized Hopper kernel (attention_ws_fp8.cu): q, k, v fp8 e4m3 codes with optional
// fp32 [B, Hkv] descales, o bf16. S = Q·Kᵀ and O += P·V run on fp8 wgmma with fp32 accumulation;
// the descales of q and k scale the scores, P is shifted into [0, 2^8] and rounded to e4m3 for the
// second product, v's descale scales o (the error this adds: docs/TOLERANCES.md). Takes BSHD at D
// 128 on Hopper; declines everything else with the reason.
#include <opcert/sdk/checked_implementation.h>

#include <cstdint>
#include <string>

#include "ops/attention_call.h"
#include "ops/attention_hopper_support.h"
#include "ops/attention_params.h"

namespace opcert::cuda {
namespace attn {
namespace {

constexpr const char* kKey = "cuda.attention.warpspec_fp8";
constexpr int kFp8D = 128;

/// fp8 inputs, the shared shape limits, D 128, the Hopper keys' conditions (device, scale,
/// alignment, shared memory, the sm_90a image), then TMA's.
sdk::Support fp8_support(const CudaContext& ctx, const AttentionOperands& a) {
  const std::string key(kKey);
  if (!a.fp8()) return sdk::Support::no(key + " takes fp8_e4m3fn q, k and v only (cuda.attention.warpspec takes fp16/bf16)");
  if (const sdk::Support shared = shape_limits(a); !shared.supported) return shared;
  if (a.d != kFp8D) return sdk::Support::no(key + " takes head dim D 128 only, not " + std::to_string(a.d));
  const auto kernel = [](int) { return ws_fp8_kernel(); };  // (one image, whatever the head dim)
  const auto smem = [](int) { return ws_fp8_smem_bytes(); };
  if (const sdk::Support hopper = hopper_kernel_support(ctx, a, {kKey, kernel, kernel, smem}); !hopper.supported)
    return hopper;
  if (a.hq == 0) return sdk::Support::no(key + " needs at least one head (a tensor map has no empty dimension)");
  return tma_limits(a, key);
}

void run(CudaContext& ctx, const AttentionOperands& a) {
  if (a.tq == 0 || a.batch == 0) return;  // no query: o and lse are empty
  const Params p = params_of(a);
  launch_ws_fp8(p, ctx.scratch.get(ws_fp8_scratch_bytes(p)), ctx.stream);
}

}  // namespace

sdk::Implementation warpspec_fp8_implementation(CudaContext& ctx) {
  return sdk::checked_implementation(
      {kKey, "attention",
       "FlashAttention-3's fp8 forward on the warp-specialized Hopper kernel (sm_90a): fp8 e4m3 q, k, v with "
       "[B, Hkv] descales, fp8 wgmma for both products (P shifted into [0, 2^8] and rounded to e4m3), V transposed "
       "to scratch first, bf16 o; D 128, BSHD, causal, window, GQA/MQA, lse. Compute capability 9.x only",
       OPCERT_DEVICE_CUDA},
      sdk::parse_attention, [&ctx](const AttentionOperands& a) { run(ctx, a); },
      [&ctx](const AttentionOperands& a) { return fp8_support(ctx, a); });
}

}  // namespace attn
}  // namespace opcert::cuda
