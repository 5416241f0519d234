// The fp8 e4m3 form of the warp-specialized Hopper attention kernel (attention_ws_kernel.cuh with
// E4m3; its key: attention_ws_fp8_key.cpp): V written transposed to scratch first
// (attention_v_transpose.cuh: fp8 wgmma reads K-major operands only), then the kernel through
// tensor maps of bytes.
#include <cstdint>

#include "cuda_check.h"
#include "ops/attention_params.h"
#include "ops/attention_v_transpose.cuh"
#include "ops/attention_ws_launch.cuh"

namespace opcert::cuda::attn {
namespace {

using Cfg = WsD128Fp8;

}  // namespace

std::size_t ws_fp8_scratch_bytes(const Params& p) {
  return static_cast<std::size_t>(p.batch) * p.hkv * Cfg::kD * static_cast<std::size_t>(vt_keys(p.skv));
}

void launch_ws_fp8(const Params& p, void* vt, cudaStream_t stream) {
  const WsWalk walk = ws_walk(p, Cfg::kBM, Cfg::kElemBytes);
  if (walk.tiles() == 0 || p.hkv == 0) return;
  const int64_t skv_pad = vt_keys(p.skv);
  const dim3 tgrid(static_cast<unsigned>((p.skv + 63) / 64), static_cast<unsigned>(p.hkv), static_cast<unsigned>(p.batch));
  transpose_v_fp8_kernel<Cfg::kD><<<tgrid, 256, 0, stream>>>(static_cast<const uint8_t*>(p.v), static_cast<uint8_t*>(vt),
                                                              p.skv, p.hkv, skv_pad);
  OPCERT_CUDA_CHECK_LAUNCH("transpose_v_fp8_kernel");
  const auto kernel = attention_ws_kernel<E4m3, Cfg>;
  WsMaps maps{};
  maps.q = bshd_map(p.q, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, p.batch, p.sq, p.hq, Cfg::kD, 64);
  maps.k = bshd_map(p.k, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, p.batch, p.skv, p.hkv, Cfg::kD, Cfg::kBN);
  TensorMapShape vt_shape;  // [B, Hkv, D, keys], keys innermost: a box is D rows of kBN keys
  vt_shape.sizes = {static_cast<uint64_t>(skv_pad), Cfg::kD, static_cast<uint64_t>(p.hkv), static_cast<uint64_t>(p.batch)};
  const uint64_t row = static_cast<uint64_t>(skv_pad);
  vt_shape.strides = {row, row * Cfg::kD, row * Cfg::kD * p.hkv};
  vt_shape.box = {Cfg::kBN, Cfg::kD, 1, 1};
  maps.v = encode_tensor_map_4d(vt, CU_TENSOR_MAP_DATA_TYPE_UINT8, vt_shape);
  OPCERT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
  kernel<<<ws_grid(walk), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(maps, p, walk, WsTileQueue{});  // (not persistent)
  OPCERT_CUDA_CHECK_LAUNCH("attention_ws_kernel<E4m3>");
}

const void* ws_fp8_kernel() { return reinterpret_cast<const void*>(attention_ws_kernel<E4m3, Cfg>); }
int ws_fp8_smem_bytes() { return Cfg::kSmemBytes; }

}  // namespace opcert::cuda::attn
