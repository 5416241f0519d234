// The bf16 instantiations of the tensor-core attention kernel (D 64, 128, 256).
#include "ops/attention_flash_kernel.cuh"

namespace opcert::cuda::attn {

void launch_flash_bf16(const Params& p, cudaStream_t stream) { launch_flash_t<__nv_bfloat16>(p, stream); }

}  // namespace opcert::cuda::attn
