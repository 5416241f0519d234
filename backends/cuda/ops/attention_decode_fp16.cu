// The fp16 instantiations of cuda.attention.decode's kernels (D 64, 128, 256; 1, 2, 4 row blocks).
#include "ops/attention_decode_launch.cuh"

namespace opcert::cuda::attn {

void launch_decode_fp16(const Params& p, const DecodeLaunch& l, cudaStream_t stream) {
  launch_decode_t<__half>(p, l, stream);
}
const void* decode_kernel_fp16(int d, int row_blocks) { return decode_kernel_t<__half>(d, row_blocks); }
int decode_ctas_per_sm_fp16(int d, int row_blocks) { return decode_ctas_per_sm_t<__half>(d, row_blocks); }

}  // namespace opcert::cuda::attn
