// cuda.attention.flash: scaled dot-product attention forward (docs/OPS.md "attention"), BSHD or
// varlen, bottom-right causal mask, sliding window, GQA/MQA by index mapping, optional lse.
// fp16/bf16 with D 64/128/256 run the tensor-core kernel (attention_flash_kernel.cuh); fp32 and
// every other case the simple fp32-math kernel (attention_fp32.cu). The call is read by the SDK's
// parse_attention and checked against the kernels' shared limits (attention_call.h); this file
// picks the kernel and registers the implementation.
#include <opcert/sdk/checked_implementation.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "cuda_check.h"
#include "cuda_implementations.h"
#include "ops/attention_call.h"
#include "ops/attention_flash_kernel.cuh"
#include "ops/attention_members.h"
#include "ops/attention_params.h"

namespace opcert::cuda {
namespace {

using attn::AttentionOperands;
using attn::Dtype;
using attn::Params;

/// The tensor-core kernel takes fp16/bf16, D 64/128/256 and a positive finite scale (its running
/// max is taken over raw scores); fp32 stays on fp32 math.
bool flash_shape_ok(const AttentionOperands& a, const cudaDeviceProp& props) {
  if (attn::dtype_of(a) == Dtype::f32) return false;
  const int smem = attn::flash_smem_bytes(static_cast<int>(a.d));
  // (+ the kernel's few static bytes)
  if (smem == 0 || static_cast<std::size_t>(smem) + 256 > props.sharedMemPerBlockOptin) return false;
  return attn::positive_scale(a);
}

void run(CudaContext& ctx, const AttentionOperands& a) {
  if (a.tq == 0 || a.batch == 0) return;  // no query: o and lse are empty
  const Params p = attn::params_of(a);
  const bool flash = flash_shape_ok(a, ctx.props) && attn::aligned16(a);
  if (flash) attn::launch_flash(p, attn::dtype_of(a), ctx.stream);
  else attn::launch_simple(p, attn::dtype_of(a), ctx.stream);
}

}  // namespace

namespace attn {

int flash_smem_bytes(int d) {
  switch (d) {
    case 64: return FlashConfigFor<64>::type::kSmemBytes;
    case 128: return FlashConfigFor<128>::type::kSmemBytes;
    case 256: return FlashConfigFor<256>::type::kSmemBytes;
    default: return 0;
  }
}

void launch_flash(const Params& p, Dtype dtype, cudaStream_t stream) {
  if (dtype == Dtype::bf16) launch_flash_bf16(p, stream);
  else if (dtype == Dtype::f16) launch_flash_fp16(p, stream);
}

}  // namespace attn

std::vector<sdk::Implementation> attention_implementations(CudaContext& ctx) {
  return {sdk::checked_implementation(
              {"cuda.attention.flash", "attention",
               "FlashAttention-2 forward: fp16/bf16 with D 64/128/256 on mma.sync tensor cores (cp.async double "
               "buffering, online softmax in fp32, masked tiles skipped); fp32 and other head dims on an fp32-math "
               "kernel. BSHD and varlen, causal, window, GQA/MQA, lse",
               OPCERT_DEVICE_CUDA},
              sdk::parse_attention, [&ctx](const AttentionOperands& a) { run(ctx, a); }, attn::kernel_limits),
          attn::wgmma_implementation(ctx), attn::warpspec_implementation(ctx),
          attn::warpspec_fp8_implementation(ctx), attn::flash_fp8_implementation(ctx)};
}

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "attention", attention_implementations)

}  // namespace opcert::cuda
