// Device pieces shared by opcert's fp8 mma.sync GEMMs (gemm_fp8_mma.cu, gemm_fp8_skinny.cu): the
// m16n8k32 fp8 MMA for each pair of input formats, cp.async copies, and the epilogue's bias loads
// and output rounding.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "ops/gemm_epilogue.h"
#include "ops/vector_io.cuh"

namespace opcert::cuda::fp8mma {

// d += a · b for one m16n8k32 tile: a is 16×32 row-major, b 32×8 column-major (a row of the
// [N, K] weight), both fp8 packed four to a register; d in fp32.
template <bool kAE5m2, bool kBE5m2>
__device__ __forceinline__ void mma_fp8(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define OPCERT_MMA_FP8(TA, TB)                                                                            \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." TA "." TB ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
               "{%8,%9}, {%0,%1,%2,%3};\n"                                                              \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                          \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
  if constexpr (!kAE5m2 && !kBE5m2)
    OPCERT_MMA_FP8("e4m3", "e4m3");
  else if constexpr (!kAE5m2 && kBE5m2)
    OPCERT_MMA_FP8("e4m3", "e5m2");
  else if constexpr (kAE5m2 && !kBE5m2)
    OPCERT_MMA_FP8("e5m2", "e4m3");
  else
    OPCERT_MMA_FP8("e5m2", "e5m2");
#undef OPCERT_MMA_FP8
#else
  __trap();  // the host never launches this below compute capability 8.9
#endif
}

// A 16-byte global-to-shared copy that reads src_bytes (0 or 16) and zero-fills the rest.
__device__ __forceinline__ void cp_async16(void* smem, const void* global, int src_bytes) {
  const auto dst = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(global), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_async_wait_all_but_newest() { asm volatile("cp.async.wait_group 1;\n" ::); }
// Waits until at most kPending of this thread's committed copy groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Four packed fp8 values from shared memory (4-byte aligned).
__device__ __forceinline__ uint32_t load_word(const uint8_t* smem) { return *reinterpret_cast<const uint32_t*>(smem); }

__device__ __forceinline__ void store_out(void* c, int64_t i, float v, EpilogueOut out) {
  switch (out) {
    case EpilogueOut::kBf16: static_cast<__nv_bfloat16*>(c)[i] = vio::from_f32<__nv_bfloat16>(v); break;
    case EpilogueOut::kFp16: static_cast<__half*>(c)[i] = vio::from_f32<__half>(v); break;
    default: static_cast<float*>(c)[i] = v;
  }
}

__device__ __forceinline__ float load_bias(const void* bias, int64_t col, EpilogueOut out) {
  switch (out) {
    case EpilogueOut::kBf16: return vio::to_f32(static_cast<const __nv_bfloat16*>(bias)[col]);
    case EpilogueOut::kFp16: return vio::to_f32(static_cast<const __half*>(bias)[col]);
    default: return static_cast<const float*>(bias)[col];
  }
}

// Calls launch.template operator()<kAE5m2, kBE5m2>() for the operands' formats known at run time:
// each pair of fp8 formats is its own kernel instance.
template <class Launch>
void with_fp8_formats(bool a_e5m2, bool b_e5m2, Launch&& launch) {
  if (!a_e5m2 && !b_e5m2)
    launch.template operator()<false, false>();
  else if (!a_e5m2)
    launch.template operator()<false, true>();
  else if (!b_e5m2)
    launch.template operator()<true, false>();
  else
    launch.template operator()<true, true>();
}

}  // namespace opcert::cuda::fp8mma
