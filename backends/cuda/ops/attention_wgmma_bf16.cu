// The bf16 instantiations of the Hopper attention kernel (D 64, 128).
#include "ops/attention_wgmma_kernel.cuh"

namespace opcert::cuda::attn {

void launch_wgmma_bf16(const Params& p, cudaStream_t stream) { launch_wgmma_t<__nv_bfloat16>(p, stream); }
const void* wgmma_kernel_bf16(int d) { return wgmma_kernel_t<__nv_bfloat16>(d); }

}  // namespace opcert::cuda::attn
