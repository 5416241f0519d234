// The CUDA backend's Hopper attention kernels as a shared library for attention_ws_probe.py: the
// warp-specialized kernel (cuda.attention.warpspec) and the earlier wgmma kernel
// (cuda.attention.wgmma), launched on raw device pointers of dense BSHD tensors, so that one
// Python process can check them against torch's SDPA and time all three on the same data.
// kernel: 0 cuda.attention.warpspec as the backend runs it, 1 cuda.attention.wgmma, 2 and 3 the
// warp-specialized kernel's configurations 1 and 2 (attention_ws_launch.cuh), 4 its fp8 form
// (cuda.attention.warpspec_fp8: e4m3 q, k, v with descales, bf16 o, scratch for the transposed V),
// 5 cuda.attention.warpspec with its tiles walked a head at a time (attention_ws_walk.h), 6 its
// persistent form (variant 3 of attention_ws_launch.cuh).
// Build: nvcc -arch=sm_90a -O3 -std=c++20 -shared -Xcompiler -fPIC -I backends/cuda
//        -I backends/sdk/include (this file, the kernels' .cu files, tensor_map.cpp, cuda_check.cpp).
#include <cstdint>
#include <cstdio>
#include <exception>

#include "cuda_check.h"
#include "ops/attention_params.h"
#include "probe_params.h"

using opcert::cuda::attn::Params;

namespace {

/// The probe's tile counters for the persistent configurations (tile_counters.h), made on the first
/// call's stream and zeroed before it returns; every launch after runs on one stream (the caller's).
/// Throws if the device has no memory for them.
opcert::cuda::TileCounters& probe_tile_counters(cudaStream_t stream) {
  static opcert::cuda::TileCounters counters;
  if (counters.device == nullptr) {
    int* ints = nullptr;
    OPCERT_CUDA_CHECK(cudaMalloc(&ints, 2 * sizeof(int)));
    OPCERT_CUDA_CHECK(cudaMemsetAsync(ints, 0, 2 * sizeof(int), stream));
    OPCERT_CUDA_CHECK(cudaStreamSynchronize(stream));
    counters.device = ints;
  }
  return counters;
}

}  // namespace

extern "C" int probe_attention(int kernel, int dtype_bf16, void* q, void* k, void* v, void* o, float* lse, int batch,
                               int sq, int skv, int hq, int hkv, int d, int causal, int window_left, float scale,
                               void* stream, const float* q_descale, const float* k_descale, const float* v_descale,
                               void* scratch, size_t scratch_bytes) {
  Params p = opcert::cuda::attn::probe_params(q, k, v, o, lse, nullptr, nullptr, batch, hq, hkv, d, sq, skv,
                                                int64_t{batch} * sq, int64_t{batch} * skv, scale, causal, window_left);
  p.q_descale = q_descale;
  p.k_descale = k_descale;
  p.v_descale = v_descale;
  const auto s = static_cast<cudaStream_t>(stream);
  try {
    using namespace opcert::cuda::attn;
    const int sms = probe_device_props().multiProcessorCount;
    if (kernel == 0) {
      auto& counters = probe_tile_counters(s);
      dtype_bf16 ? launch_ws_bf16(p, sms, counters, s) : launch_ws_fp16(p, sms, counters, s);
    }
    else if (kernel == 1) dtype_bf16 ? launch_wgmma_bf16(p, s) : launch_wgmma_fp16(p, s);
    else if (kernel == 4) {
      if (ws_fp8_scratch_bytes(p) > scratch_bytes) {
        std::fprintf(stderr, "probe_attention: fp8 needs %zu bytes of scratch\n", ws_fp8_scratch_bytes(p));
        return 1;
      }
      launch_ws_fp8(p, scratch, s);
    }
    else {
      // 5: the measured choice walked a head at a time; 6: the persistent form; 2, 3: configurations 1, 2.
      const int variant = kernel == 5 ? 0 : kernel == 6 ? 3 : kernel - 1;
      const bool heads_one_at_a_time = kernel == 5;
      auto& counters = probe_tile_counters(s);
      dtype_bf16 ? launch_ws_bf16_variant(p, sms, counters, s, variant, heads_one_at_a_time)
                 : launch_ws_fp16_variant(p, sms, counters, s, variant, heads_one_at_a_time);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "probe_attention: %s\n", e.what());
    return 1;
  }
  return 0;
}
