// The fp16 instantiations of the warp-specialized Hopper attention kernel (D 64, 128).
#include "ops/attention_ws_launch.cuh"

namespace opcert::cuda::attn {

void launch_ws_fp16(const Params& p, int sms, TileCounters& counters, cudaStream_t stream) {
  launch_ws_t<__half>(p, sms, counters, stream);
}
const void* ws_kernel_fp16(int d) { return ws_kernel_t<__half>(d); }
void launch_ws_fp16_variant(const Params& p, int sms, TileCounters& counters, cudaStream_t stream, int variant,
                            bool heads_one_at_a_time) {
  launch_ws_variant<__half>(p, sms, counters, stream, variant, heads_one_at_a_time);
}

}  // namespace opcert::cuda::attn
