// The attention kernels' implementations, registered by their own files and composed once more by
// cuda.attention.tuned (attention_tuned.cpp), which runs each call on the first of them that takes it.
#pragma once

#include <opcert/sdk/backend.h>

#include <vector>

#include "cuda_context.h"

namespace opcert::cuda {

std::vector<sdk::Implementation> attention_implementations(CudaContext& ctx);         // flash, wgmma, warpspec (attention_flash.cu)
std::vector<sdk::Implementation> attention_decode_implementations(CudaContext& ctx);  // split-KV decode (attention_decode.cu)

}  // namespace opcert::cuda
