// Hopper's asynchronous machinery as small device wrappers (PTX ISA 8.x, sm_90a): mbarriers with
// transaction counts, TMA bulk tensor copies between global memory and shared memory, named
// barriers between warpgroups, and register reallocation (setmaxnreg). The warp-specialized
// kernels build their pipelines from these; every wrapper compiles to nothing on a device pass
// without sm_90a, where the host never launches those kernels.
#pragma once

#include <cuda.h>  // CUtensorMap (the type only; the host encodes maps through tensor_map.h)

#include <cstdint>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define OPCERT_HOPPER_ASYNC_OK 1
#else
#define OPCERT_HOPPER_ASYNC_OK 0
#endif

namespace opcert::cuda::hopper {

// ---- mbarriers -----------------------------------------------------------------------------

/// Initialises the mbarrier at shared address `bar` to expect `count` arrivals a phase.
__device__ inline void mbar_init(uint32_t bar, uint32_t count) {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#endif
}

/// Makes the initialisations visible to the async proxy (TMA) and the other threads (with the
/// barrier that follows it).
__device__ inline void mbar_fence_init() {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/// One arrival that also announces `bytes` more of transactions (TMA copies) this phase.
__device__ inline void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
#endif
}

/// One plain arrival (a consumer releasing a stage).
__device__ inline void mbar_arrive(uint32_t bar) {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
#endif
}

/// Waits until the phase of parity `parity` has completed. A fresh barrier counts its phase
/// before the first as completed, so waiting with parity 1 on it returns at once (a producer's
/// first pass over empty stages).
__device__ inline void mbar_wait(uint32_t bar, uint32_t parity) {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile(
      "{\n.reg .pred done;\n"
      "wait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
#endif
}

// ---- TMA -----------------------------------------------------------------------------------

/// Pulls the tensor map into the constant cache before its first use.
__device__ inline void tma_prefetch_map(const CUtensorMap* map) {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
#endif
}

/// Copies the box at coordinates (c0..c3) of the 4-d tensor `map` into shared memory at `dst`,
/// completing `bytes` of transactions on mbarrier `bar`. Elements outside the tensor read as 0.
__device__ inline void tma_load_4d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1, int c2, int c3) {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], "
      "[%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
#endif
}

/// Stores the box at `src` in shared memory to coordinates (c0..c3) of `map`; elements outside the
/// tensor are not written. Completes as a bulk group (tma_store_commit / tma_store_wait).
__device__ inline void tma_store_4d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2, int c3) {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
#endif
}
__device__ inline void tma_store_commit() {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}
/// Waits until the committed stores have read their shared memory (it may then be reused or the
/// CTA exit).
__device__ inline void tma_store_wait_read() {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
#endif
}

/// Orders this thread's generic-proxy shared-memory writes (cp.async's included) before later
/// async-proxy accesses (a TMA store, or wgmma reading its operands); a barrier then extends that
/// to the CTA.
__device__ inline void fence_async_shared() {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// ---- named barriers and registers ----------------------------------------------------------

/// Waits at named barrier `id` until `threads` threads (a multiple of 32) have arrived or synced.
__device__ inline void named_sync(int id, int threads) {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#endif
}
/// Counts this warp's threads at named barrier `id` without waiting.
__device__ inline void named_arrive(int id, int threads) {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#endif
}

/// Lowers (dec) or raises (inc) this warpgroup's registers per thread to N: the producer gives its
/// registers to the consumers, whose accumulators need them.
template <int N>
__device__ inline void setmaxnreg_dec() {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
template <int N>
__device__ inline void setmaxnreg_inc() {
#if OPCERT_HOPPER_ASYNC_OK
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}

}  // namespace opcert::cuda::hopper
