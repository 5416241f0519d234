// cuda.attention.flash: scaled dot-product attention forward (docs/OPS.md "attention"), BSHD or
// varlen, bottom-right causal mask, sliding window, GQA/MQA by index mapping, optional lse.
// fp16/bf16 with D 64/128/256 run the tensor-core kernel (attention_flash_kernel.cuh); fp32 and
// every other case the simple fp32-math kernel (attention_fp32.cu). This file checks the call
// against the contract, picks the kernel and registers the implementation.
#include <opcert/sdk/call_check.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "cuda_check.h"
#include "ops/attention_call.h"
#include "ops/attention_flash_kernel.cuh"
#include "ops/attention_params.h"
#include "ops/cuda_ops.h"

namespace opcert::cuda {
namespace {

using attn::AttentionCall;
using attn::Dtype;
using attn::Params;

/// The tensor-core kernel takes fp16/bf16, D 64/128/256 and a positive finite scale (its running
/// max is taken over raw scores); fp32 stays on fp32 math.
bool flash_shape_ok(const AttentionCall& a, const cudaDeviceProp& props) {
  if (a.dtype == Dtype::f32) return false;
  const int smem = attn::flash_smem_bytes(static_cast<int>(a.d));
  // (+ the kernel's few static bytes)
  if (smem == 0 || static_cast<std::size_t>(smem) + 256 > props.sharedMemPerBlockOptin) return false;
  return attn::positive_scale(a);
}

sdk::Support query(const sdk::OpCall& call) {
  sdk::CallCheck check(call, false, OPCERT_DEVICE_CUDA);
  attn::parse_call(call, check);
  return check.support();
}

void run(CudaContext& ctx, const sdk::OpCall& call) {
  sdk::CallCheck check(call, true, OPCERT_DEVICE_CUDA);
  const AttentionCall a = attn::parse_call(call, check);
  check.throw_if_failed();
  if (a.tq == 0 || a.batch == 0) return;  // no query: o and lse are empty
  const Params p = attn::params_of(a);
  const bool flash = flash_shape_ok(a, ctx.props) && attn::aligned16(a);
  if (flash) attn::launch_flash(p, a.dtype, ctx.stream);
  else attn::launch_simple(p, a.dtype, ctx.stream);
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
  return {{"cuda.attention.flash", "attention",
           "FlashAttention-2 forward: fp16/bf16 with D 64/128/256 on mma.sync tensor cores (cp.async double "
           "buffering, online softmax in fp32, masked tiles skipped); fp32 and other head dims on an fp32-math "
           "kernel. BSHD and varlen, causal, window, GQA/MQA, lse",
           query, [&ctx](const sdk::OpCall& call) { run(ctx, call); }},
          attn::wgmma_implementation(ctx)};
}

}  // namespace opcert::cuda
