// The skinny fp8 GEMM's host side: the tile it launches and what it takes (gemm_fp8_skinny.h).
#include "ops/gemm_fp8_skinny.h"

#include "ops/gemm_fp8_skinny_kernel.cuh"
#include "ops/launch_common.cuh"

namespace opcert::cuda {
namespace {

// The tile measured fastest on the H100 (ci/gpu/probes/fp8_skinny_probe.cu, docs/PERFORMANCE.md).
using ChosenTile = skinny::Tile<32, 4, 4>;

template <bool kAE5m2, bool kBE5m2>
void launch_typed(const CudaContext& ctx, const Fp8MmaProblem& p) {
  using T = ChosenTile;
  auto* kernel = skinny::fp8_skinny_gemm_kernel<T, kAE5m2, kBE5m2>;
  prepare_smem(ctx, kernel, T::kSmemBytes);
  kernel<<<static_cast<unsigned>(ceil_div(p.n, T::kTileN)), T::kThreads, T::kSmemBytes, ctx.stream>>>(p);
}

}  // namespace

std::optional<std::string> fp8_skinny_unsupported(const CudaContext& ctx, const Fp8MmaProblem& p) {
  using T = ChosenTile;
  if (auto why = fp8_mma_unavailable(ctx, reinterpret_cast<const void*>(skinny::fp8_skinny_gemm_kernel<T, false, false>)))
    return why;
  if (static_cast<std::size_t>(T::kSmemBytes) > ctx.props.sharedMemPerBlockOptin)
    return "the skinny kernel needs " + std::to_string(T::kSmemBytes) + " bytes of shared memory a block, the device allows " +
           std::to_string(ctx.props.sharedMemPerBlockOptin);
  if (p.m > kFp8SkinnyMaxM)
    return "M " + std::to_string(p.m) + " is above the skinny kernel's " + std::to_string(kFp8SkinnyMaxM);
  if (p.k % 16 != 0) return "K " + std::to_string(p.k) + " is not a multiple of 16 (the kernel copies 16 bytes at a time)";
  if (!aligned16({p.a, p.b})) return "a or b is not 16-byte aligned (the kernel copies 16 bytes at a time)";
  if (ceil_div(p.n, ChosenTile::kTileN) > 0x7fffffff) return "N " + std::to_string(p.n) + " is above the launch grid's limit";
  return std::nullopt;
}

void launch_fp8_skinny_gemm(const CudaContext& ctx, const Fp8MmaProblem& p) {
  fp8mma::with_fp8_formats(p.a_e5m2, p.b_e5m2, [&]<bool kAE5m2, bool kBE5m2>() { launch_typed<kAE5m2, kBE5m2>(ctx, p); });
}

}  // namespace opcert::cuda
