// Host side of the warp-specialized attention kernel (attention_ws_kernel.cuh): its tensor maps
// and its launch, per element type and head dim. Included by the per-dtype translation units.
#pragma once

#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "cuda_check.h"
#include "ops/attention_ws_kernel.cuh"
#include "ops/tensor_map.h"

namespace opcert::cuda::attn {

/// The 4-d map of a dense [B, S, H, D] tensor of `elem_bytes`-byte elements: boxes of one
/// 128-byte block of columns (the swizzle span) and `box_rows` tokens of one head.
inline CUtensorMap bshd_map(const void* base, CUtensorMapDataType dtype, int elem_bytes, int batch, int s, int h, int d,
                            int box_rows) {
  TensorMapShape shape;
  shape.sizes = {static_cast<uint64_t>(d), static_cast<uint64_t>(h), static_cast<uint64_t>(s),
                 static_cast<uint64_t>(batch)};
  const uint64_t row = static_cast<uint64_t>(d) * elem_bytes;
  shape.strides = {row, row * h, row * h * s};
  shape.box = {static_cast<uint32_t>(128 / elem_bytes), 1, static_cast<uint32_t>(box_rows), 1};
  return encode_tensor_map_4d(base, dtype, shape);
}

/// The walk of a BSHD call in query tiles of bm rows (attention_ws_walk.h); causal calls are walked
/// longest first in groups of heads unless heads_one_at_a_time (probes compare the two).
inline WsWalk ws_walk(const Params& p, int bm, int elem_bytes, bool heads_one_at_a_time = false) {
  const int64_t kv_head_bytes = int64_t{2} * p.skv * p.d * elem_bytes;
  return ws_walk_of((p.sq + bm - 1) / bm, p.hq * p.batch, p.causal && !heads_one_at_a_time, kv_head_bytes, p.group);
}

inline dim3 ws_grid(const WsWalk& w) { return dim3(static_cast<unsigned>(w.tiles()), 1, 1); }

/// Launches the kernel of configuration Cfg for a BSHD call on a device of `sms` multiprocessors
/// (a persistent configuration's CTAs, which take their tiles from the stream's counters).
template <class T, class Cfg>
void launch_ws_cfg(const Params& p, int sms, TileCounters& counters, cudaStream_t stream, bool heads_one_at_a_time) {
  const auto kernel = attention_ws_kernel<T, Cfg>;
  const WsWalk walk = ws_walk(p, Cfg::kBM, Cfg::kElemBytes, heads_one_at_a_time);
  if (walk.tiles() == 0) return;
  const CUtensorMapDataType dtype =
      std::is_same_v<T, __nv_bfloat16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  WsMaps maps;
  maps.q = bshd_map(p.q, dtype, 2, p.batch, p.sq, p.hq, Cfg::kD, 64);
  maps.k = bshd_map(p.k, dtype, 2, p.batch, p.skv, p.hkv, Cfg::kD, Cfg::kBN);
  maps.v = bshd_map(p.v, dtype, 2, p.batch, p.skv, p.hkv, Cfg::kD, Cfg::kBN);
  maps.o = bshd_map(p.o, dtype, 2, p.batch, p.sq, p.hq, Cfg::kD, 64);
  OPCERT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
  dim3 grid = ws_grid(walk);
  WsTileQueue queue;
  if constexpr (Cfg::kPersistent) {
    if (counters.device == nullptr) throw std::logic_error("launch_ws_cfg: a persistent launch without tile counters");
    grid.x = std::min(grid.x, static_cast<unsigned>(std::max(sms, 1)));
    queue = {counters.now(), counters.next()};
    // An earlier, unreported error would read as this launch's below, and the counters would then
    // miss a launch that ran.
    OPCERT_CUDA_CHECK(cudaGetLastError());
  }
  kernel<<<grid, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(maps, p, walk, queue);
  OPCERT_CUDA_CHECK_LAUNCH("attention_ws_kernel");
  if constexpr (Cfg::kPersistent) counters.launched();
}

/// Where the measured choice changes (probes of 2026-11-27, docs/PERFORMANCE.md): D 128 takes
/// 176-key tiles unless a window masks them or a causal mask does on sequences shorter than this;
/// D 64 takes 192-row tiles from these query rows on (causal, and not). Up to kWsPersistentMaxRows
/// query rows, a CTA's fixed costs (its Q and first K/V loads, the first softmax and the last P·V
/// with nothing to hide under) weigh most, and the persistent form, which overlaps them with the
/// previous tile's end and hands tiles out as CTAs free up, measured ahead (probe of 2026-11-27,
/// third sitting) at D 128 without a window, and at D 64 causal or up to kWsD64PersistentMaxFullRows
/// rows; at D 64 S2048 without a mask the 192-row tiles stay ahead.
inline constexpr int kWsD128WideMinCausalRows = 4096;
inline constexpr int kWsD64TallMinCausalRows = 2048;
inline constexpr int kWsD64TallMinRows = 1024;
inline constexpr int kWsPersistentMaxRows = 2048;
inline constexpr int kWsD64PersistentMaxFullRows = 1024;

/// Which configuration runs a call: 0 the measured choice, 1 the first of its head dim's pair
/// (WsD128Wide, WsD64Tall), 2 the second (WsD128, WsD64), 3 the persistent form (WsD128Persistent,
/// WsD64Persistent); and in which order its tiles are walked (attention_ws_walk.h;
/// heads_one_at_a_time for the order before the grouped walk). Probes time them one by one.
template <class T>
void launch_ws_variant(const Params& p, int sms, TileCounters& counters, cudaStream_t stream, int variant,
                       bool heads_one_at_a_time) {
  const bool short_seq = p.sq <= kWsPersistentMaxRows;
  if (p.d == 128) {
    const bool wide = p.window_left < 0 && (!p.causal || p.sq >= kWsD128WideMinCausalRows);
    if (variant == 3 || (variant == 0 && short_seq && p.window_left < 0))
      launch_ws_cfg<T, WsD128Persistent>(p, sms, counters, stream, heads_one_at_a_time);
    else if (variant == 1 || (variant == 0 && wide)) launch_ws_cfg<T, WsD128Wide>(p, sms, counters, stream, heads_one_at_a_time);
    else launch_ws_cfg<T, WsD128>(p, sms, counters, stream, heads_one_at_a_time);
  } else if (p.d == 64) {
    const bool tall = p.sq >= (p.causal ? kWsD64TallMinCausalRows : kWsD64TallMinRows);
    const bool persistent = short_seq && (p.causal || (p.sq <= kWsD64PersistentMaxFullRows && p.window_left < 0));
    if (variant == 3 || (variant == 0 && persistent))
      launch_ws_cfg<T, WsD64Persistent>(p, sms, counters, stream, heads_one_at_a_time);
    else if (variant == 1 || (variant == 0 && tall)) launch_ws_cfg<T, WsD64Tall>(p, sms, counters, stream, heads_one_at_a_time);
    else launch_ws_cfg<T, WsD64>(p, sms, counters, stream, heads_one_at_a_time);
  }
}

/// One kernel of head dim d (null if d is not 64 or 128), for the image check (all of a head
/// dim's configurations are built together).
template <class T>
const void* ws_kernel_t(int d) {
  return d == 64    ? reinterpret_cast<const void*>(attention_ws_kernel<T, WsD64>)
         : d == 128 ? reinterpret_cast<const void*>(attention_ws_kernel<T, WsD128>)
                    : nullptr;
}

template <class T>
void launch_ws_t(const Params& p, int sms, TileCounters& counters, cudaStream_t stream) {
  launch_ws_variant<T>(p, sms, counters, stream, 0, false);
}

}  // namespace opcert::cuda::attn
