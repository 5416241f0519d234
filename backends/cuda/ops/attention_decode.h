// The launchers of cuda.attention.decode's kernels (attention_decode_kernel.cuh and
// attention_decode_combine.cuh), per dtype: attention_decode_bf16.cu, attention_decode_fp16.cu;
// and the one host path from a call to a launch (plan_decode_call), which the backend
// (attention_decode.cu) and ci/gpu/probes/attention_decode_probe.cu both take. The caller has
// checked the call: fp16/bf16, D 64/128/256, a positive finite scale, 16-byte aligned operands.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "ops/attention_decode_plan.h"
#include "ops/attention_params.h"

namespace opcert::cuda::attn {

/// How one decode call is launched.
struct DecodeLaunch {
  int row_blocks = 1;             // 16-row MMA blocks of a CTA tile: 1, 2 or 4
  int splits = 1;                 // KV splits per (sequence, KV head); 1: o and lse written directly
  float* workspace = nullptr;     // decode_workspace_floats(tq, hq, d, splits) floats when splits > 1
  bool dependent_launch = false;  // the merge may be a programmatic dependent (9.0+; where its image waits)
};

/// Threads of a decode CTA (its shared memory: decode_smem_bytes).
inline constexpr int kDecodeThreads = 32 * kDecodeWarps;

/// The split kernel, then (splits > 1) the merge, on `stream`.
void launch_decode_bf16(const Params& p, const DecodeLaunch& l, cudaStream_t stream);
void launch_decode_fp16(const Params& p, const DecodeLaunch& l, cudaStream_t stream);

/// The split kernel for head dim d and row_blocks (null for a pair it does not take): for its image.
const void* decode_kernel_bf16(int d, int row_blocks);
const void* decode_kernel_fp16(int d, int row_blocks);

/// CTAs of that kernel one SM holds (0 for a pair it does not take); the first call per kernel
/// also sets its shared-memory attributes.
int decode_ctas_per_sm_bf16(int d, int row_blocks);
int decode_ctas_per_sm_fp16(int d, int row_blocks);

/// The plan's view of a call: per-sequence rows and keys (varlen: averages over the sequences,
/// rounded up; their lengths are device data). Keys are those some query may see: a window
/// narrows them to window_left + Sq.
inline DecodeProblem decode_problem(bool varlen, int64_t batch, int64_t hkv, int64_t group, int d, int64_t sq,
                                    int64_t skv, int64_t tq, int64_t tk, int64_t window_left) {
  DecodeProblem p;
  p.batch = batch;
  p.hkv = hkv;
  p.d = d;
  p.varlen = varlen;
  const int64_t b = std::max<int64_t>(1, batch);
  const int64_t q_rows = varlen ? (tq + b - 1) / b : sq;
  const int64_t keys = varlen ? (tk + b - 1) / b : skv;
  p.rows_per_seq = varlen ? (tq * group + b - 1) / b : sq * group;
  p.keys_per_seq = window_left >= 0 ? std::min(keys, window_left + q_rows) : keys;
  return p;
}

inline DecodeProblem decode_problem_of(const Params& p) {
  return decode_problem(p.cu_q != nullptr, p.batch, p.hkv, p.group, p.d, p.sq, p.skv, p.tq, p.tk, p.window_left);
}

/// The plan of a call on a device of `sms` SMs, whose split kernel for (d, row_blocks) holds
/// ctas_per_sm(d, row_blocks) CTAs an SM (decode_ctas_per_sm_*).
inline DecodePlan plan_decode_call(const Params& p, int sms, int (*ctas_per_sm)(int d, int row_blocks)) {
  const DecodeProblem problem = decode_problem_of(p);
  const int row_blocks = decode_row_blocks(problem.rows_per_seq);
  return plan_decode(problem, int64_t{sms} * std::max(1, ctas_per_sm(p.d, row_blocks)));
}

}  // namespace opcert::cuda::attn
