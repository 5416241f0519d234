// The bf16 instantiations of the warp-specialized Hopper attention kernel (D 64, 128).
#include "ops/attention_ws_launch.cuh"

namespace opcert::cuda::attn {

void launch_ws_bf16(const Params& p, int sms, TileCounters& counters, cudaStream_t stream) {
  launch_ws_t<__nv_bfloat16>(p, sms, counters, stream);
}
const void* ws_kernel_bf16(int d) { return ws_kernel_t<__nv_bfloat16>(d); }
void launch_ws_bf16_variant(const Params& p, int sms, TileCounters& counters, cudaStream_t stream, int variant,
                            bool heads_one_at_a_time) {
  launch_ws_variant<__nv_bfloat16>(p, sms, counters, stream, variant, heads_one_at_a_time);
}

}  // namespace opcert::cuda::attn
