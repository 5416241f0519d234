// cuda.attention.tuned, the production attention key of configs/cuda-h100.json: each call runs on
// the first CUDA attention key that takes it, in the order measured fastest on the H100
// (docs/PERFORMANCE.md): the split-KV decode kernel for decode-shaped calls, the warp-specialized
// kernel for BSHD fp16/bf16 at D 64/128 and its fp8 form for fp8 e4m3 at D 128, the wgmma kernel
// for varlen, and the FlashAttention-2 style kernel (with its fp32 kernel) for everything else, fp8
// through its dequantizing form.
#include <string>
#include <utility>
#include <vector>

#include "cuda_implementations.h"
#include "ops/attention_members.h"
#include "ops/first_taker.h"

namespace opcert::cuda {
namespace {

std::vector<sdk::Implementation> attention_tuned_implementations(CudaContext& ctx) {
  std::vector<sdk::Implementation> members = attention_decode_implementations(ctx);
  const std::vector<std::string> order = {"cuda.attention.warpspec", "cuda.attention.warpspec_fp8", "cuda.attention.wgmma",
                                          "cuda.attention.flash", "cuda.attention.flash_fp8"};
  std::vector<sdk::Implementation> prefill = attention_implementations(ctx);
  for (const std::string& key : order)
    for (auto& impl : prefill)
      if (impl.key == key) members.push_back(std::move(impl));
  std::vector<sdk::Implementation> tuned;
  tuned.push_back(first_taker("cuda.attention.tuned", "attention",
                              "the per-call choice measured on the H100: cuda.attention.decode for decode-shaped calls, "
                              "cuda.attention.warpspec for BSHD fp16/bf16 at D 64/128, cuda.attention.warpspec_fp8 for fp8 "
                              "e4m3 at D 128, cuda.attention.wgmma for varlen, cuda.attention.flash otherwise (fp8: "
                              "cuda.attention.flash_fp8)",
                              std::move(members)));
  return tuned;
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "attention_tuned", attention_tuned_implementations)

}  // namespace opcert::cuda
