// Host-side helpers of the memory-bound kernels: alignment tests that pick the 16-byte path, and
// grids sized to what the device holds at once (the kernels loop over their rows or units, so a
// grid of resident blocks does all the work in one wave without block-launch churn).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "cuda_check.h"
#include "cuda_context.h"

namespace opcert::cuda {

/// True when every pointer is 16-byte aligned (null counts as aligned: an absent operand).
inline bool aligned16(std::initializer_list<const void*> ptrs) {
  for (const void* p : ptrs)
    if ((reinterpret_cast<std::uintptr_t>(p) & 15u) != 0) return false;
  return true;
}

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// "" when the image of `kernel` the runtime picked for `device` was built for compute capability
/// `min_version` (as 89, 90) or later, else why not, naming `what`: a binary built for sm_80 and
/// sm_90a gives an 8.9 device the sm_80 image, where fp8 mma.sync compiles to a trap. Cached per
/// device and kernel: the kernels' support checks ask on every call.
inline std::string kernel_image_problem(int device, const void* kernel, int min_version, const std::string& what) {
  static std::mutex mutex;
  static std::map<std::pair<int, const void*>, std::string> cache;
  const auto key = std::make_pair(device, kernel);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  cudaFuncAttributes attr{};
  std::string problem;
  if (const cudaError_t err = cudaFuncGetAttributes(&attr, kernel); err != cudaSuccess) {
    (void)cudaGetLastError();
    problem = what + " has no kernel image for this device (" + cudaGetErrorString(err) + ")";
  } else if (attr.ptxVersion < min_version || attr.binaryVersion < min_version) {
    problem = what + " has no image built for compute capability " + std::to_string(min_version / 10) + "." +
              std::to_string(min_version % 10) + " or later for this device (kernel image: PTX " +
              std::to_string(attr.ptxVersion) + ", binary " + std::to_string(attr.binaryVersion) + ")";
  }
  cache.emplace(key, problem);
  return problem;
}

/// Blocks of `kernel` (launched with `threads` threads and `smem` dynamic shared bytes) that fit
/// on one SM at once, at least 1. Cached per (device, kernel, threads, smem): the occupancy query
/// costs microseconds, more than some of these kernels run.
inline int resident_blocks_per_sm(int device, const void* kernel, int threads, std::size_t smem) {
  static std::mutex mutex;
  static std::map<std::tuple<int, const void*, int, std::size_t>, int> cache;
  const auto key = std::make_tuple(device, kernel, threads, smem);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  int blocks = 0;
  OPCERT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem));
  blocks = std::max(blocks, 1);
  std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(key, blocks);
  return blocks;
}

/// Prepares `kernel` for `bytes` of dynamic shared memory a block, once per device and kernel
/// (the calls cost more than a small kernel runs): raises its limit above the default 48 KiB when
/// needed, and asks for the largest shared-memory carveout, so that as many blocks are resident
/// as resident_grid() counted (a smaller carveout chosen by the driver would leave part of the
/// grid waiting for a second wave).
template <class Kernel>
void prepare_smem(const CudaContext& ctx, Kernel* kernel, std::size_t bytes) {
  if (bytes == 0) return;
  static std::mutex mutex;
  static std::map<std::pair<int, const void*>, std::size_t> prepared;
  const auto key = std::make_pair(ctx.device, reinterpret_cast<const void*>(kernel));
  std::lock_guard<std::mutex> lock(mutex);
  auto it = prepared.find(key);
  if (it != prepared.end() && it->second >= bytes) return;
  if (bytes > (std::size_t{48} << 10))
    OPCERT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  OPCERT_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  prepared[key] = bytes;
}

/// Grid for a kernel that loops over `work` items, `per_block` at a time: no more blocks than
/// the device holds at once, no more than there is work for, at least 1.
template <class Kernel>
unsigned resident_grid(const CudaContext& ctx, Kernel* kernel, int threads, std::size_t smem, int64_t work,
                       int64_t per_block = 1) {
  const int64_t resident =
      int64_t{ctx.sms()} * resident_blocks_per_sm(ctx.device, reinterpret_cast<const void*>(kernel), threads, smem);
  const int64_t needed = ceil_div(work, per_block);
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>({resident, needed, int64_t{INT32_MAX}})));
}

}  // namespace opcert::cuda
