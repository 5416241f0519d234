// The launchers of cuda.attention.decode's kernels for one element type, instantiated by
// attention_decode_bf16.cu and attention_decode_fp16.cu (declared in attention_decode.h): the
// split kernel on a (splits, KV heads, sequences) grid, then, with more than one split, the merge.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "ops/attention_decode.h"
#include "ops/attention_decode_combine.cuh"
#include "ops/attention_decode_kernel.cuh"

namespace opcert::cuda::attn {

/// CTAs of the split kernel for (T, D, MB) that an SM holds, at least 1; the first call raises
/// the kernel's dynamic shared memory limit and asks for the largest carveout (so that two CTAs
/// share an SM where their memory allows). Once per kernel: the backend serves one device per
/// process (docs/CUDA.md).
template <class T, int D, int MB>
int decode_ctas_per_sm_d() {
  using Cfg = DecodeConfig<D, MB>;
  static const int ctas = [] {
    const auto kernel = attention_decode_kernel<T, Cfg>;
    OPCERT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
    OPCERT_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    int n = 0;
    OPCERT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, Cfg::kThreads, Cfg::kSmemBytes));
    return n > 0 ? n : 1;
  }();
  return ctas;
}

/// Whether the image of the merge kernel this device runs waits for the split kernel itself
/// (griddepcontrol.wait, compiled for compute capability 9.0 and later): only then may it be
/// launched as a programmatic dependent. An sm_80 image run on a newer device does not wait.
template <class T, int D>
bool decode_combine_waits() {
  static const bool waits = [] {
    cudaFuncAttributes attr{};
    OPCERT_CUDA_CHECK(cudaFuncGetAttributes(&attr, attention_decode_combine_kernel<T, D>));
    return attr.ptxVersion >= 90 && attr.binaryVersion >= 90;
  }();
  return waits;
}

template <class T, int D>
void launch_decode_combine(const Params& p, const DecodeOut& out, bool dependent, cudaStream_t stream) {
  using Cfg = DecodeCombineConfig<D>;
  dependent = dependent && decode_combine_waits<T, D>();
  const int64_t rows = p.tq * p.hq;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>((rows + Cfg::kRows - 1) / Cfg::kRows));
  cfg.blockDim = dim3(Cfg::kThreads);
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = dependent ? 1 : 0;
  OPCERT_CUDA_CHECK(cudaLaunchKernelEx(&cfg, attention_decode_combine_kernel<T, D>, p, out));
}

template <class T, int D, int MB>
void launch_decode_d(const Params& p, const DecodeLaunch& l, cudaStream_t stream) {
  using Cfg = DecodeConfig<D, MB>;
  const auto kernel = attention_decode_kernel<T, Cfg>;
  decode_ctas_per_sm_d<T, D, MB>();  // (prepares the kernel)
  DecodeOut out;
  if (l.splits > 1) {
    out.o_part = l.workspace;
    out.lse_part = l.workspace + p.tq * p.hq * l.splits * D;
    out.splits = l.splits;
  }
  const dim3 grid(static_cast<unsigned>(out.splits), static_cast<unsigned>(p.hkv), static_cast<unsigned>(p.batch));
  kernel<<<grid, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(p, out);
  OPCERT_CUDA_CHECK_LAUNCH("attention_decode_kernel");
  if (l.splits > 1) launch_decode_combine<T, D>(p, out, l.dependent_launch, stream);
}

template <class T, int D>
void launch_decode_rows(const Params& p, const DecodeLaunch& l, cudaStream_t stream) {
  switch (l.row_blocks) {
    case 1: launch_decode_d<T, D, 1>(p, l, stream); break;
    case 2: launch_decode_d<T, D, 2>(p, l, stream); break;
    case 4: launch_decode_d<T, D, 4>(p, l, stream); break;
    default: break;  // the plan gives 1, 2 or 4
  }
}

template <class T>
void launch_decode_t(const Params& p, const DecodeLaunch& l, cudaStream_t stream) {
  if (p.batch == 0 || p.tq == 0) return;  // no query: o and lse are empty
  switch (p.d) {
    case 64: launch_decode_rows<T, 64>(p, l, stream); break;
    case 128: launch_decode_rows<T, 128>(p, l, stream); break;
    case 256: launch_decode_rows<T, 256>(p, l, stream); break;
    default: break;  // the caller declines other head dims
  }
}

template <class T, int D>
int decode_ctas_per_sm_rows(int row_blocks) {
  switch (row_blocks) {
    case 1: return decode_ctas_per_sm_d<T, D, 1>();
    case 2: return decode_ctas_per_sm_d<T, D, 2>();
    case 4: return decode_ctas_per_sm_d<T, D, 4>();
    default: return 0;
  }
}

template <class T>
int decode_ctas_per_sm_t(int d, int row_blocks) {
  switch (d) {
    case 64: return decode_ctas_per_sm_rows<T, 64>(row_blocks);
    case 128: return decode_ctas_per_sm_rows<T, 128>(row_blocks);
    case 256: return decode_ctas_per_sm_rows<T, 256>(row_blocks);
    default: return 0;
  }
}

template <class T, int D>
const void* decode_kernel_rows(int row_blocks) {
  switch (row_blocks) {
    case 1: return reinterpret_cast<const void*>(attention_decode_kernel<T, DecodeConfig<D, 1>>);
    case 2: return reinterpret_cast<const void*>(attention_decode_kernel<T, DecodeConfig<D, 2>>);
    case 4: return reinterpret_cast<const void*>(attention_decode_kernel<T, DecodeConfig<D, 4>>);
    default: return nullptr;
  }
}

template <class T>
const void* decode_kernel_t(int d, int row_blocks) {
  switch (d) {
    case 64: return decode_kernel_rows<T, 64>(row_blocks);
    case 128: return decode_kernel_rows<T, 128>(row_blocks);
    case 256: return decode_kernel_rows<T, 256>(row_blocks);
    default: return nullptr;
  }
}

}  // namespace opcert::cuda::attn
