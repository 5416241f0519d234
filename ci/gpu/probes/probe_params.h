// The attention kernels' parameters from a probe's arguments (ci/gpu/probes/*.cu), filled as the
// backend's params_of fills them from a parsed call (backends/cuda/ops/attention_call.cpp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "ops/attention_params.h"

namespace opcert::cuda::attn {

/// BSHD when cu_q is null (then tq = batch · sq and tk = batch · skv), else varlen.
inline Params probe_params(const void* q, const void* k, const void* v, void* o, float* lse, const int32_t* cu_q,
                           const int32_t* cu_k, int batch, int hq, int hkv, int d, int sq, int skv, int64_t tq,
                           int64_t tk, float scale, int causal, int window_left) {
  Params p;
  p.q = q;
  p.k = k;
  p.v = v;
  p.o = o;
  p.lse = lse;
  p.cu_q = cu_q;
  p.cu_k = cu_k;
  p.batch = batch;
  p.hq = hq;
  p.hkv = hkv;
  p.group = hq / hkv;
  p.d = d;
  p.sq = sq;
  p.skv = skv;
  p.tq = tq;
  p.tk = tk;
  set_scale(p, scale);
  p.causal = causal;
  p.window_left = window_left;
  return p;
}

/// The current device's properties, queried once (the query costs more than a decode step; a
/// probe runs on one device).
inline const cudaDeviceProp& probe_device_props() {
  static const cudaDeviceProp props = [] {
    int device = 0;
    cudaDeviceProp pr{};
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&pr, device) != cudaSuccess)
      throw std::runtime_error("no CUDA device");
    return pr;
  }();
  return props;
}

}  // namespace opcert::cuda::attn
