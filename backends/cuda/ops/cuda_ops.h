// The implementations of the CUDA backend, one function per op family; cuda_backend.cpp adds them.
// Each captures the context by reference: the backend owns it and outlives them.
#pragma once

#include <opcert/sdk/backend.h>

#include <vector>

#include "cuda_context.h"

namespace opcert::cuda {

std::vector<sdk::Implementation> gemm_implementations(CudaContext& ctx);       // gemm (+ tf32), cuBLASLt
sdk::Implementation gemm_tf32_implementation(CudaContext& ctx);                // gemm's TF32 key, in the above
std::vector<sdk::Implementation> gemm_fp8_implementations(CudaContext& ctx);   // cuBLASLt fp8
std::vector<sdk::Implementation> gemm_int8_implementations(CudaContext& ctx);  // cuBLASLt int8
std::vector<sdk::Implementation> norm_implementations(CudaContext& ctx);       // rms_norm, layer_norm
std::vector<sdk::Implementation> rope_implementations(CudaContext& ctx);
std::vector<sdk::Implementation> softmax_implementations(CudaContext& ctx);
std::vector<sdk::Implementation> quantize_implementations(CudaContext& ctx);
std::vector<sdk::Implementation> attention_implementations(CudaContext& ctx);   // flash attention
std::vector<sdk::Implementation> attention_decode_implementations(CudaContext& ctx);  // split-KV decode
std::vector<sdk::Implementation> attention_tuned_implementations(CudaContext& ctx);  // per-call choice

}  // namespace opcert::cuda
