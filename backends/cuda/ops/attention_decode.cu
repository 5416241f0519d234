// cuda.attention.decode: the attention forward (docs/OPS.md "attention") for decode-shaped calls,
// few query rows against many keys, with the keys split across CTAs (attention_decode_kernel.cuh,
// attention_decode_combine.cuh; the plan in attention_decode_plan.h). The call is read by the SDK's
// parse_attention and checked against the kernels' shared limits (attention_call.h), then against
// what this kernel takes: fp16/bf16, D 64/128/256, a positive finite scale, 16-byte aligned
// operands, and a decode shape: BSHD with Sq·(Hq/Hkv) <= 64 query rows per KV head, or varlen with
// at most that many on average per sequence (a longer sequence is walked in tiles). Everything else
// is declined with the reason (cuda.attention.flash takes it). Causal, window, GQA/MQA, lse.
#include <opcert/sdk/checked_implementation.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "cuda_implementations.h"
#include "ops/attention_call.h"
#include "ops/attention_decode.h"
#include "ops/attention_members.h"
#include "ops/attention_params.h"
#include "ops/launch_common.cuh"

namespace opcert::cuda {
namespace {

using attn::AttentionOperands;
using attn::Dtype;

constexpr const char* kKey = "cuda.attention.decode";

std::string declined(const std::string& why) { return std::string(kKey) + " " + why; }

/// Query rows (query heads of a KV head × query tokens) per (sequence, KV head): the tile's rows.
sdk::Support decode_shape_support(const AttentionOperands& a) {
  const int64_t group = a.group();
  if (!a.varlen()) {
    if (a.sq * group > attn::kDecodeMaxRows)
      return sdk::Support::no(declined("is for decode: Sq·(Hq/Hkv) = " + std::to_string(a.sq) + "·" +
                                        std::to_string(group) + " query rows per KV head, above the " +
                                        std::to_string(attn::kDecodeMaxRows) +
                                        " of its tile (cuda.attention.flash takes it)"));
    return sdk::Support::yes();
  }
  // Varlen: the lengths are device data; a sequence longer than the tile is still right (walked
  // tile by tile), but calls that are prefill-shaped on average belong to the prefill kernels.
  if (a.tq * group > attn::kDecodeMaxRows * a.batch)
    return sdk::Support::no(declined("is for decode: Tq·(Hq/Hkv) = " + std::to_string(a.tq) + "·" +
                                      std::to_string(group) + " query rows over " + std::to_string(a.batch) +
                                      " sequences is above " + std::to_string(attn::kDecodeMaxRows) +
                                      " a sequence on average (cuda.attention.flash takes it)"));
  if (a.batch > 65535)
    return sdk::Support::no(declined("takes at most 65535 varlen sequences (grid limit), not " + std::to_string(a.batch)));
  return sdk::Support::yes();
}

/// Whether the decode kernel takes a call that parsed and is within the shared kernel limits.
sdk::Support decode_support(const CudaContext& ctx, const AttentionOperands& a) {
  const cudaDeviceProp& props = ctx.props;
  if (props.major < 8)
    return sdk::Support::no(declined("needs compute capability 8.0 or later (bf16/fp16 mma.sync), this device is " +
                                     std::to_string(props.major) + "." + std::to_string(props.minor)));
  if (a.dtype != OPCERT_DTYPE_F16 && a.dtype != OPCERT_DTYPE_BF16)
    return sdk::Support::no(declined(std::string("takes fp16/bf16 only, not ") + sdk::dtype_name(a.dtype) +
                                     " (fp32: cuda.attention.flash)"));
  if (a.d != 64 && a.d != 128 && a.d != 256)
    return sdk::Support::no(declined("takes head dim D 64, 128 or 256, not " + std::to_string(a.d) +
                                     " (cuda.attention.flash takes 1 to 256)"));
  if (!attn::positive_scale(a))
    return sdk::Support::no(declined("needs a positive finite softmax scale (its running max is over raw scores)"));
  if (!attn::aligned16(a)) return sdk::Support::no(declined("needs q, k, v and o 16-byte aligned"));
  if (const sdk::Support shape = decode_shape_support(a); !shape.supported) return shape;
  // Row indices (token * heads) are int32 on the device.
  if (a.tq * a.hq >= INT32_MAX)
    return sdk::Support::no(declined("takes fewer than 2^31 (query token, query head) rows"));
  const int d = static_cast<int>(a.d);
  const int row_blocks = attn::decode_row_blocks(attn::decode_problem(a.varlen(), a.batch, a.hkv, a.group(), d, a.sq,
                                                                      a.skv, a.tq, a.tk, a.window_left)
                                                     .rows_per_seq);
  const int smem = attn::decode_smem_bytes(d, row_blocks);
  if (static_cast<std::size_t>(smem) + 1024 > props.sharedMemPerBlockOptin)  // (+ its static bytes)
    return sdk::Support::no(declined("needs " + std::to_string(smem) + " bytes of shared memory a block, the device allows " +
                                     std::to_string(props.sharedMemPerBlockOptin)));
  const void* kernel = a.dtype == OPCERT_DTYPE_BF16 ? attn::decode_kernel_bf16(d, row_blocks)
                                                    : attn::decode_kernel_fp16(d, row_blocks);
  const std::string problem = kernel_image_problem(ctx.device, kernel, 80, kKey);
  if (!problem.empty()) return sdk::Support::no(problem);
  return sdk::Support::yes();
}

/// The shared limits, then this kernel's.
sdk::Support support(const CudaContext& ctx, const AttentionOperands& a) {
  const sdk::Support shared = attn::kernel_limits(a);
  return shared.supported ? decode_support(ctx, a) : shared;
}

void run(CudaContext& ctx, const AttentionOperands& a) {
  if (a.tq == 0 || a.batch == 0) return;  // no query: o and lse are empty
  const attn::Params p = attn::params_of(a);
  const bool bf16 = attn::dtype_of(a) == Dtype::bf16;
  const attn::DecodePlan plan =
      attn::plan_decode_call(p, ctx.sms(), bf16 ? attn::decode_ctas_per_sm_bf16 : attn::decode_ctas_per_sm_fp16);
  attn::DecodeLaunch launch;
  launch.row_blocks = plan.row_blocks;
  launch.splits = plan.splits;
  launch.dependent_launch = ctx.props.major >= 9;
  if (const int64_t floats = attn::decode_workspace_floats(p.tq, p.hq, p.d, plan.splits); floats > 0)
    launch.workspace = static_cast<float*>(ctx.scratch.get(static_cast<std::size_t>(floats) * sizeof(float)));
  if (bf16) attn::launch_decode_bf16(p, launch, ctx.stream);
  else attn::launch_decode_fp16(p, launch, ctx.stream);
}

}  // namespace

std::vector<sdk::Implementation> attention_decode_implementations(CudaContext& ctx) {
  return {sdk::checked_implementation(
      {kKey, "attention",
       "Decode attention with split KV: one CTA per (KV split, KV head, sequence) whose tile packs the KV head's "
       "query heads × query rows (K and V read once per KV head), mma.sync m16n8k16 with fp32 online softmax, "
       "~32 KiB K/V tiles in a 3-stage cp.async ring, the keys split across CTAs to fill the SMs and the partial "
       "results merged by a second kernel. fp16/bf16, D 64/128/256; BSHD with Sq·(Hq/Hkv) <= 64, varlen with at "
       "most that on average; causal, window, GQA/MQA, lse",
       OPCERT_DEVICE_CUDA},
      sdk::parse_attention, [&ctx](const AttentionOperands& a) { run(ctx, a); },
      [&ctx](const AttentionOperands& a) { return support(ctx, a); })};
}

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "attention_decode", attention_decode_implementations)

}  // namespace opcert::cuda
