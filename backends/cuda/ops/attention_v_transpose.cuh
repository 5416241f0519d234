// V for the fp8 attention kernel: fp8 wgmma reads its B operand K-major only, so P·V needs V with
// the keys contiguous. This kernel writes Vᵀ [B, Hkv, D, keys] from V [B, S, Hkv, D] (fp8 e4m3,
// D 128), keys padded with zeros to a multiple of 32 and, within each 32, in the order the
// kernel's P fragments hold them (fp8_v_key), so that P needs no shuffle between its two products.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ops/attention_ws_kernel.cuh"

namespace opcert::cuda::attn {

/// Keys of the transposed V: skv rounded up to whole 32-key P fragments.
inline int64_t vt_keys(int64_t skv) { return (skv + 31) / 32 * 32; }

/// 64 keys of one (KV head, batch entry) a block, 256 threads: the keys' 64 rows of kD bytes into
/// shared memory, then kD rows (one per d) of 64 permuted keys out.
template <int kD>
__global__ void __launch_bounds__(256) transpose_v_fp8_kernel(const uint8_t* v, uint8_t* vt, int skv, int hkv,
                                                              int64_t skv_pad) {
  constexpr int kKeys = 64;
  __shared__ uint8_t tile[kKeys][kD + 16];  // (+16: rows start on different banks)
  const int k0 = blockIdx.x * kKeys, h = blockIdx.y, b = blockIdx.z;
  for (int idx = threadIdx.x; idx < kKeys * (kD / 16); idx += blockDim.x) {
    const int r = idx / (kD / 16), c = idx % (kD / 16);
    uint4 val = make_uint4(0, 0, 0, 0);
    if (k0 + r < skv) val = *reinterpret_cast<const uint4*>(v + ((int64_t{b} * skv + k0 + r) * hkv + h) * kD + c * 16);
    *reinterpret_cast<uint4*>(&tile[r][c * 16]) = val;
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < kD * (kKeys / 16); idx += blockDim.x) {
    const int d = idx / (kKeys / 16), q = idx % (kKeys / 16);  // q: which 16 of the 64 positions
    if (k0 + q * 16 >= skv_pad) continue;
    uint32_t words[4];
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      uint32_t word = 0;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int ka = q * 16 + w * 4 + j;  // position among the 64
        const int key = ka / 32 * 32 + fp8_v_key(ka % 32);
        word |= static_cast<uint32_t>(tile[key][d]) << (8 * j);
      }
      words[w] = word;
    }
    *reinterpret_cast<uint4*>(vt + ((int64_t{b} * hkv + h) * kD + d) * skv_pad + k0 + q * 16) =
        make_uint4(words[0], words[1], words[2], words[3]);
  }
}

}  // namespace opcert::cuda::attn
