// The attention problem as the CUDA kernels see it (docs/OPS.md "attention"): one POD passed by
// value to every kernel, BSHD or varlen. Tokens are rows of [tokens, heads, D]; a sequence b holds
// query tokens [q_start, q_start + sq) and key tokens [k_start, k_start + skv).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "tile_counters.h"

namespace opcert::cuda::attn {

/// Lengths are kept below this so that every in-sequence index sum (i + Skv - Sq - window) fits
/// an int32 (the query rejects larger problems).
inline constexpr int64_t kMaxTokens = int64_t{1} << 30;

struct Params {
  const void* q = nullptr;  // [tokens_q, hq, d]
  const void* k = nullptr;  // [tokens_k, hkv, d]
  const void* v = nullptr;  // [tokens_k, hkv, d]
  void* o = nullptr;        // [tokens_q, hq, d]
  float* lse = nullptr;     // BSHD [B, hq, sq], varlen [hq, tq]; null when not requested
  const int32_t* cu_q = nullptr;  // varlen exactly when non-null: [batch + 1]
  const int32_t* cu_k = nullptr;
  int batch = 0;
  int hq = 0, hkv = 0, group = 1;  // group = hq / hkv: query head h reads kv head h / group
  int d = 0;
  int sq = 0, skv = 0;  // BSHD sequence lengths (unused for varlen)
  int64_t tq = 0, tk = 0;  // query and key tokens in all
  float scale = 1.0f;       // softmax scale (natural units)
  float scale_log2 = 1.0f;  // scale * log2(e): p = exp2(s * scale_log2 - m * scale_log2)
  int causal = 0;
  int window_left = -1;  // < 0: unlimited
  // fp8 e4m3 q, k, v only: fp32 [batch, hkv] dequantization factors, null meaning 1.
  const float* q_descale = nullptr;
  const float* k_descale = nullptr;
  const float* v_descale = nullptr;
};

/// log2(e): the kernels take their exponentials as exp2 of scores times scale · log2(e).
inline constexpr double kLog2e = 1.4426950408889634;

/// Sets p's softmax scale and the form the kernels multiply by, scale · log2(e) (in double, then
/// rounded once).
inline void set_scale(Params& p, double scale) {
  p.scale = static_cast<float>(scale);
  p.scale_log2 = static_cast<float>(scale * kLog2e);
}

/// dtypes the launchers take (matches OPCERT_DTYPE_* through the caller's switch).
enum class Dtype { f32, f16, bf16 };

/// The tensor-core kernel (fp16/bf16, D 64/128/256, scale > 0, 16-byte aligned operands; the
/// caller checks): dispatches on dtype and p.d.
void launch_flash(const Params& p, Dtype dtype, cudaStream_t stream);
/// Per-dtype entry points (attention_flash_bf16.cu, attention_flash_fp16.cu).
void launch_flash_bf16(const Params& p, cudaStream_t stream);
void launch_flash_fp16(const Params& p, cudaStream_t stream);
/// Shared memory the tensor-core kernel needs for head dim d (0 if d is not one it takes).
int flash_smem_bytes(int d);

/// The Hopper kernel of cuda.attention.wgmma (attention_wgmma_kernel.cuh: fp16/bf16, D 64/128,
/// sm_90a; the caller checks): per-dtype entry points, the kernel for head dim d (null for other
/// d, for its attributes), and its shared memory for head dim d (0 if not one it takes).
void launch_wgmma_bf16(const Params& p, cudaStream_t stream);
void launch_wgmma_fp16(const Params& p, cudaStream_t stream);
const void* wgmma_kernel_bf16(int d);
const void* wgmma_kernel_fp16(int d);
int wgmma_smem_bytes(int d);

/// The warp-specialized Hopper kernel of cuda.attention.warpspec (attention_ws_kernel.cuh: TMA
/// producer warpgroup, mbarrier ring, ping-ponging consumers; fp16/bf16, D 64/128, BSHD, sm_90a;
/// the caller checks): per-dtype entry points, the kernel for head dim d (null for other d), and
/// its shared memory for head dim d (0 if not one it takes). `sms`: the device's multiprocessors,
/// the CTAs of its persistent configurations, which take their tiles from `counters` (the
/// stream's, tile_counters.h).
void launch_ws_bf16(const Params& p, int sms, TileCounters& counters, cudaStream_t stream);
void launch_ws_fp16(const Params& p, int sms, TileCounters& counters, cudaStream_t stream);
/// The same with the configuration chosen by hand (variant 1 or 2; 0 the measured choice), and the
/// tiles walked a head at a time instead of in the causal grouped order (attention_ws_launch.cuh),
/// for probes.
void launch_ws_bf16_variant(const Params& p, int sms, TileCounters& counters, cudaStream_t stream, int variant,
                            bool heads_one_at_a_time);
void launch_ws_fp16_variant(const Params& p, int sms, TileCounters& counters, cudaStream_t stream, int variant,
                            bool heads_one_at_a_time);
const void* ws_kernel_bf16(int d);
const void* ws_kernel_fp16(int d);
int ws_smem_bytes(int d);
/// The kernel's fp8 e4m3 form (cuda.attention.warpspec_fp8: BSHD, D 128, o bf16, descales in p):
/// writes V transposed into `scratch` (ws_fp8_scratch_bytes(p) bytes), then runs the kernel.
std::size_t ws_fp8_scratch_bytes(const Params& p);
void launch_ws_fp8(const Params& p, void* scratch, cudaStream_t stream);
/// The fp8 kernel, for its attributes, and its dynamic shared memory.
const void* ws_fp8_kernel();
int ws_fp8_smem_bytes();

/// The simple fp32-math kernel (any dtype, 1 <= D <= 256): one warp per (query, head).
inline constexpr int kSimpleMaxD = 256;
void launch_simple(const Params& p, Dtype dtype, cudaStream_t stream);

}  // namespace opcert::cuda::attn
