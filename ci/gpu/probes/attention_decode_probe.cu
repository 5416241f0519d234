// The C entry point through which ci/gpu/probes/attention_decode_probe.py runs cuda.attention.decode
// on torch's tensors: the backend's own host path (plan_decode_call, attention_decode.h) and its
// own kernels (attention_decode_bf16.cu / _fp16.cu, compiled beside this file), with the workspace
// from a growable cudaMalloc buffer instead of the backend's caching allocator. Built by the
// script:
//   nvcc -arch=sm_90a -O3 -std=c++20 -Xcompiler -fPIC -I backends/cuda -I backends/sdk/include -c ...
//   nvcc -shared -o libattention_decode_probe.so attention_decode_probe.o attention_decode_bf16.o
//        attention_decode_fp16.o cuda_check.o
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "ops/attention_decode.h"
#include "probe_params.h"

namespace {

using opcert::cuda::attn::DecodeLaunch;
using opcert::cuda::attn::DecodePlan;
using opcert::cuda::attn::Params;

std::string last_error;

/// The probe's workspace: grown on demand, kept for later calls (one stream: safe to reuse).
float* workspace(int64_t floats) {
  static float* buffer = nullptr;
  static int64_t have = 0;
  if (floats <= have) return buffer;
  if (buffer != nullptr) cudaFree(buffer);
  buffer = nullptr;
  have = 0;
  if (cudaMalloc(&buffer, static_cast<std::size_t>(floats) * sizeof(float)) != cudaSuccess) {
    buffer = nullptr;
    throw std::runtime_error("cudaMalloc of the decode workspace failed");
  }
  have = floats;
  return buffer;
}

}  // namespace

extern "C" {

/// The last failure's message ("" when none).
const char* decode_probe_error() { return last_error.c_str(); }

/// Runs cuda.attention.decode on raw device pointers (BSHD when cu_q is null, else varlen), as the
/// backend's run() does. dtype: 0 bf16, 1 fp16. splits_override > 0 replaces the plan's split
/// count (for sweeps). On return plan_out holds {row_blocks, splits}. Returns 0, or -1 with
/// decode_probe_error() saying why.
int decode_probe_run(int dtype, const void* q, const void* k, const void* v, void* o, float* lse, const int32_t* cu_q,
                     const int32_t* cu_k, int batch, int hq, int hkv, int d, int sq, int skv, int64_t tq, int64_t tk,
                     float scale, int causal, int window_left, int splits_override, void* stream, int* plan_out) {
  try {
    last_error.clear();
    const Params p = opcert::cuda::attn::probe_params(q, k, v, o, lse, cu_q, cu_k, batch, hq, hkv, d, sq, skv, tq, tk,
                                                      scale, causal, window_left);
    const cudaDeviceProp& props = opcert::cuda::attn::probe_device_props();
    namespace attn = opcert::cuda::attn;
    const DecodePlan plan = attn::plan_decode_call(p, props.multiProcessorCount,
                                                   dtype == 0 ? attn::decode_ctas_per_sm_bf16 : attn::decode_ctas_per_sm_fp16);
    DecodeLaunch launch;
    launch.row_blocks = plan.row_blocks;
    launch.splits = splits_override > 0 ? splits_override : plan.splits;
    launch.dependent_launch = props.major >= 9;
    if (const int64_t floats = attn::decode_workspace_floats(p.tq, p.hq, p.d, launch.splits); floats > 0)
      launch.workspace = workspace(floats);
    const auto s = static_cast<cudaStream_t>(stream);
    if (dtype == 0) attn::launch_decode_bf16(p, launch, s);
    else attn::launch_decode_fp16(p, launch, s);
    if (plan_out != nullptr) {
      plan_out[0] = launch.row_blocks;
      plan_out[1] = launch.splits;
    }
    return 0;
  } catch (const std::exception& e) {
    last_error = e.what();
    return -1;
  }
}

/// CTAs of the split kernel an SM holds for (dtype, d, row_blocks): what the plan assumed.
int decode_probe_ctas_per_sm(int dtype, int d, int row_blocks) {
  try {
    return dtype == 0 ? opcert::cuda::attn::decode_ctas_per_sm_bf16(d, row_blocks)
                      : opcert::cuda::attn::decode_ctas_per_sm_fp16(d, row_blocks);
  } catch (const std::exception& e) {
    last_error = e.what();
    return -1;
  }
}

}  // extern "C"
