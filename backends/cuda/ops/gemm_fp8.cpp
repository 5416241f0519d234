// gemm_fp8's CUDA keys. cuda.gemm_fp8.cublaslt: cuBLASLt's fp8 tensor-core GEMM with the scales
// applied inside it where cuBLASLt offers it (per-tensor scalars; per-token × per-channel vectors
// through outer-vector scaling; DeepSeek-V3 blocks, 1×128 on the activations and 128×128 on the
// weight), else a fallback: per-channel scales it declines run unscaled into fp32 and one epilogue
// pass applies the scales and the bias (also the key cuda.gemm_fp8.cublaslt_epilogue); block scales
// it declines and e5m2 × e5m2 run on opcert's mma.sync kernel (gemm_fp8_mma.h, also the key
// cuda.gemm_fp8.mma). cuda.gemm_fp8.skinny is opcert's decode kernel (gemm_fp8_skinny.h), and
// cuda.gemm_fp8.tuned, the production key, picks between it and the cuBLASLt key per shape.
// Fast accumulation stays off: Hopper's fp8 accumulator keeps about 14 bits, and cuBLASLt's
// default promotes it to fp32 at intervals, which is what docs/TOLERANCES.md's bound assumes.
// Operands: the SDK's parse_gemm_fp8.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/gemm_fp8.h>

#include "cuda_check.h"
#include "cuda_implementations.h"
#include "ops/gemm_epilogue.h"
#include "ops/gemm_fp8_mma.h"
#include "ops/gemm_fp8_skinny.h"
#include "ops/lt_gemm.h"

namespace opcert::cuda {
namespace {

constexpr int64_t kBlock = 128;

using Fp8Args = sdk::GemmFp8Operands;

ScaleMode scale_mode_of(sdk::Fp8Scaling s) {
  return s == sdk::Fp8Scaling::kChannel ? ScaleMode::kOuterVector
         : s == sdk::Fp8Scaling::kBlock ? ScaleMode::kBlock
                                        : ScaleMode::kTensor;
}

// The per-channel fallback: the unscaled product in fp32, scaled afterwards.
LtProblem unscaled_fp32(LtProblem p) {
  p.c_type = CUDA_R_32F;
  p.bias = false;
  p.scale_mode = ScaleMode::kNone;
  return p;
}

EpilogueOut epilogue_out(int32_t dtype) {
  return dtype == OPCERT_DTYPE_BF16 ? EpilogueOut::kBf16 : dtype == OPCERT_DTYPE_F16 ? EpilogueOut::kFp16 : EpilogueOut::kFp32;
}

LtProblem problem_of(const Fp8Args& g) {
  LtProblem p;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  p.a_type = cuda_data_type(g.a->dtype());
  p.b_type = cuda_data_type(g.b->dtype());
  p.c_type = cuda_data_type(g.c->dtype());
  p.compute = CUBLAS_COMPUTE_32F;
  p.scale_type = CUDA_R_32F;
  p.bias = g.bias.has_value();
  p.scale_mode = scale_mode_of(g.scaling);
  return p;
}

// How one call runs: cuBLASLt with the scales fused, cuBLASLt unscaled then the scale epilogue,
// or the mma.sync kernel.
enum class Fp8Path { kCublasLt, kChannelEpilogue, kMma };

Fp8MmaProblem mma_problem_of(const Fp8Args& g) {
  Fp8MmaProblem q;
  q.m = g.m;
  q.n = g.n;
  q.k = g.k;
  q.a_e5m2 = g.a->dtype() == OPCERT_DTYPE_F8_E5M2;
  q.b_e5m2 = g.b->dtype() == OPCERT_DTYPE_F8_E5M2;
  q.scaling = g.scaling;
  q.a = g.a->data<const void>();
  q.b = g.b->data<const void>();
  q.a_scale = g.a_scale->data<const float>();
  q.b_scale = g.b_scale->data<const float>();
  q.bias = g.bias ? g.bias->data<const void>() : nullptr;
  q.c = g.c->data<void>();
  q.out = epilogue_out(g.c->dtype());
  return q;
}

// Why the mma.sync kernel cannot take the call here, if it cannot.
std::optional<std::string> mma_unsupported(CudaContext& ctx, const Fp8Args& g) {
  if (auto why = fp8_mma_gemm_unavailable(ctx)) return why;
  if (g.m > kFp8MmaMaxM) return "M " + std::to_string(g.m) + " is above the mma kernel's " + std::to_string(kFp8MmaMaxM);
  return std::nullopt;
}

// The path for the cuBLASLt implementation: the library where it has an algorithm, the mma kernel
// otherwise; the reason when neither can take the call.
std::optional<Fp8Path> choose_path(CudaContext& ctx, const Fp8Args& g, std::string& why) {
  const LtProblem p = problem_of(g);
  // cuBLASLt 13.1's block-scaled GEMM gave wrong results on the H100 where N or K is not a
  // multiple of 128 (a partial scale block; sweeps/gemm_fp8, 2026-11-27): those go to the mma kernel.
  const bool partial_blocks = g.scaling == sdk::Fp8Scaling::kBlock && (g.n % kBlock != 0 || g.k % kBlock != 0);
  auto lt_why = partial_blocks ? std::optional<std::string>("cuBLASLt's block scales need N and K in whole 128 blocks")
                               : lt_gemm_unsupported(ctx, p);
  if (!lt_why) return Fp8Path::kCublasLt;
  if (g.scaling == sdk::Fp8Scaling::kChannel && !lt_gemm_unsupported(ctx, unscaled_fp32(p))) return Fp8Path::kChannelEpilogue;
  auto mma_why = mma_unsupported(ctx, g);
  if (!mma_why) return Fp8Path::kMma;
  why = *lt_why + "; " + *mma_why;
  return std::nullopt;
}

// Why the cuBLASLt implementation cannot take the call, if it cannot.
std::optional<std::string> cublaslt_unsupported(CudaContext& ctx, const Fp8Args& g) {
  std::string why;
  if (choose_path(ctx, g, why)) return std::nullopt;
  return why;
}

// The limits of a call that parsed: 128-wide blocks only (every path), then `unsupported` for a
// call that needs a GEMM (not an empty output, not K = 0).
sdk::Support support_with(CudaContext& ctx, const Fp8Args& g,
                          std::optional<std::string> (*unsupported)(CudaContext&, const Fp8Args&)) {
  if (g.block != kBlock) return sdk::Support::no("only block_size 128 is supported (got " + std::to_string(g.block) + ")");
  if (g.m * g.n == 0 || g.k == 0) return sdk::Support::yes();
  if (auto why = unsupported(ctx, g)) return sdk::Support::no(*why);
  return sdk::Support::yes();
}

// Per-channel scales without cuBLASLt's outer-vector scaling: unscaled GEMM into fp32 scratch,
// then the scales and the bias in one pass.
void run_channel_epilogue(CudaContext& ctx, const Fp8Args& g, const LtProblem& p, LtOperands o) {
  auto* acc = static_cast<float*>(ctx.allocator.allocate(static_cast<std::size_t>(g.m * g.n) * sizeof(float)));
  try {
    o.c = acc;
    o.bias = nullptr;
    lt_gemm_run(ctx, unscaled_fp32(p), o, {1, 1, 4});
    launch_scale_outer(acc, false, g.a_scale->data<const float>(), g.b_scale->data<const float>(),
                       g.bias ? g.bias->data<const void>() : nullptr, g.c->data<void>(), g.m, g.n,
                       epilogue_out(g.c->dtype()), ctx.stream);
    OPCERT_CUDA_CHECK_LAUNCH("scale_outer");
  } catch (...) {
    ctx.allocator.free(acc);
    throw;
  }
  ctx.allocator.free(acc);
}

void run_cublaslt(CudaContext& ctx, const Fp8Args& g, const LtProblem& p, LtOperands o) {
  float* a_scale_t = nullptr;
  if (g.scaling == sdk::Fp8Scaling::kBlock) {
    // cuBLASLt reads the 1×128 activation scales token-major ([ceil(K/128), M], M contiguous), the
    // layout torch's _scaled_mm also demands; the contract's is [M, ceil(K/128)].
    a_scale_t = static_cast<float*>(ctx.allocator.allocate(static_cast<std::size_t>(g.m * g.blocks(g.k)) * sizeof(float)));
    launch_transpose_f32(o.a_scale, a_scale_t, g.m, g.blocks(g.k), ctx.stream);
    OPCERT_CUDA_CHECK_LAUNCH("transpose_f32");
    o.a_scale = a_scale_t;
  }
  try {
    lt_gemm_run(ctx, p, o, {1, 1, static_cast<int>(sdk::dtype_size(g.c->dtype()))});
  } catch (...) {
    ctx.allocator.free(a_scale_t);
    throw;
  }
  ctx.allocator.free(a_scale_t);  // stream-ordered: later work reusing it queues after this GEMM
}

void run_mma(CudaContext& ctx, const Fp8Args& g) {
  launch_fp8_mma_gemm(ctx, mma_problem_of(g));
  OPCERT_CUDA_CHECK_LAUNCH("fp8_mma_gemm");
}

LtOperands lt_operands_of(const Fp8Args& g) {
  LtOperands o;
  o.a = g.a->data<const void>();
  o.b = g.b->data<const void>();
  o.c = g.c->data<void>();
  o.bias = g.bias ? g.bias->data<const void>() : nullptr;
  o.a_scale = g.a_scale->data<const float>();
  o.b_scale = g.b_scale->data<const float>();
  return o;
}

// Handles what needs no GEMM (an empty output, K = 0); true when a GEMM remains.
bool gemm_remains(CudaContext& ctx, const Fp8Args& g) {
  if (g.m * g.n == 0) return false;
  if (g.k == 0) {
    fill_empty_sum(*g.c, g.bias, ctx.stream);
    return false;
  }
  return true;
}

// Runs the call on `path` as choose_path gave it (nullopt: unsupported, `why` says why).
void run_on_path(CudaContext& ctx, const Fp8Args& g, const std::optional<Fp8Path>& path, const std::string& why) {
  if (!path) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, why);
  if (*path == Fp8Path::kMma) return run_mma(ctx, g);
  const LtOperands o = lt_operands_of(g);
  if (*path == Fp8Path::kChannelEpilogue) return run_channel_epilogue(ctx, g, problem_of(g), o);
  run_cublaslt(ctx, g, problem_of(g), o);
}

void run(CudaContext& ctx, const Fp8Args& g) {
  if (!gemm_remains(ctx, g)) return;
  std::string why;
  const auto path = choose_path(ctx, g, why);
  run_on_path(ctx, g, path, why);
}

// Why the per-channel epilogue path cannot take the call, if it cannot.
std::optional<std::string> channel_epilogue_unsupported(CudaContext& ctx, const Fp8Args& g) {
  if (g.scaling != sdk::Fp8Scaling::kChannel) return std::string("this path is for per-token x per-channel scales only");
  return lt_gemm_unsupported(ctx, unscaled_fp32(problem_of(g)));
}

void run_on_channel_epilogue(CudaContext& ctx, const Fp8Args& g) {
  if (!gemm_remains(ctx, g)) return;
  if (auto why = channel_epilogue_unsupported(ctx, g)) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, *why);
  run_channel_epilogue(ctx, g, problem_of(g), lt_operands_of(g));
}

std::optional<std::string> skinny_unsupported(CudaContext& ctx, const Fp8Args& g) {
  return fp8_skinny_unsupported(ctx, mma_problem_of(g));
}

void run_skinny(CudaContext& ctx, const Fp8Args& g) {
  launch_fp8_skinny_gemm(ctx, mma_problem_of(g));
  OPCERT_CUDA_CHECK_LAUNCH("fp8_skinny_gemm");
}

void run_on_skinny(CudaContext& ctx, const Fp8Args& g) {
  if (!gemm_remains(ctx, g)) return;
  if (auto why = skinny_unsupported(ctx, g)) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, *why);
  run_skinny(ctx, g);
}

// The per-shape choice of the production key, read off suites/bench/gemm_fp8_decode.json on the H100
// (docs/PERFORMANCE.md, 2026-11-27): the skinny kernel reads a weight of up to 32 MiB faster than
// cuBLASLt at every M up to 16; above that it still leads with per-channel scales (cuBLASLt's
// outer-vector kernels are slow there) and with block scales up to M 4 (at M 1 cuBLASLt has no
// block-scaled algorithm at all), while cuBLASLt's per-tensor kernels and its block-scaled ones at
// M 16 keep pace with or beat a kernel whose 32-column tiles leave the last wave part-empty.
bool skinny_leads(const Fp8Args& g) {
  constexpr int64_t kSmallWeightBytes = int64_t{32} << 20;
  if (g.m > kFp8SkinnyMaxM) return false;
  const bool small_weight = g.n * g.k <= kSmallWeightBytes;
  switch (g.scaling) {
    case sdk::Fp8Scaling::kChannel: return true;
    case sdk::Fp8Scaling::kBlock: return small_weight || g.m <= 4;
    default: return small_weight;
  }
}

// The production key: cuda.gemm_fp8.skinny where it takes the call and leads, or where the cuBLASLt
// key's path would end on the 128-row mma kernel (never measured at M <= 16, and sized for large
// M) or nowhere; that path otherwise.
void run_tuned(CudaContext& ctx, const Fp8Args& g) {
  if (!gemm_remains(ctx, g)) return;
  const bool skinny_takes_it = !skinny_unsupported(ctx, g);
  if (skinny_takes_it && skinny_leads(g)) return run_skinny(ctx, g);
  std::string why;
  const auto path = choose_path(ctx, g, why);
  if (skinny_takes_it && (!path || *path == Fp8Path::kMma)) return run_skinny(ctx, g);
  run_on_path(ctx, g, path, why);
}

std::optional<std::string> tuned_unsupported(CudaContext& ctx, const Fp8Args& g) {
  if (!skinny_unsupported(ctx, g)) return std::nullopt;
  return cublaslt_unsupported(ctx, g);
}

void run_on_mma(CudaContext& ctx, const Fp8Args& g) {
  if (!gemm_remains(ctx, g)) return;
  if (auto why = mma_unsupported(ctx, g)) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, *why);
  run_mma(ctx, g);
}

std::vector<sdk::Implementation> gemm_fp8_implementations(CudaContext& ctx) {
  return {sdk::checked_implementation(
              {"cuda.gemm_fp8.cublaslt", "gemm_fp8",
               "cuBLASLt fp8 tensor cores with the scales and bias fused where it has an algorithm "
               "(else a scale epilogue, or the mma.sync kernel for block scales and e5m2 x e5m2)",
               OPCERT_DEVICE_CUDA},
              sdk::parse_gemm_fp8, [&ctx](const Fp8Args& g) { run(ctx, g); },
              [&ctx](const Fp8Args& g) { return support_with(ctx, g, cublaslt_unsupported); }),
          sdk::checked_implementation(
              {"cuda.gemm_fp8.mma", "gemm_fp8",
               "opcert's fp8 mma.sync kernel (sm_89+): block scales promoted per 128-wide K block, "
               "tensor/channel scales and bias in the epilogue",
               OPCERT_DEVICE_CUDA},
              sdk::parse_gemm_fp8, [&ctx](const Fp8Args& g) { run_on_mma(ctx, g); },
              [&ctx](const Fp8Args& g) { return support_with(ctx, g, mma_unsupported); }),
          sdk::checked_implementation(
              {"cuda.gemm_fp8.cublaslt_epilogue", "gemm_fp8",
               "per-token x per-channel scales without cuBLASLt's outer-vector mode: the unscaled "
               "cuBLASLt GEMM into fp32, then one pass for the scales, bias and rounding",
               OPCERT_DEVICE_CUDA},
              sdk::parse_gemm_fp8, [&ctx](const Fp8Args& g) { run_on_channel_epilogue(ctx, g); },
              [&ctx](const Fp8Args& g) { return support_with(ctx, g, channel_epilogue_unsupported); }),
          sdk::checked_implementation(
              {"cuda.gemm_fp8.skinny", "gemm_fp8",
               "opcert's fp8 mma.sync kernel for M <= 16 (decode): the weight streamed once by warps "
               "splitting K, every scaling and the bias in the epilogue",
               OPCERT_DEVICE_CUDA},
              sdk::parse_gemm_fp8, [&ctx](const Fp8Args& g) { run_on_skinny(ctx, g); },
              [&ctx](const Fp8Args& g) { return support_with(ctx, g, skinny_unsupported); }),
          sdk::checked_implementation(
              {"cuda.gemm_fp8.tuned", "gemm_fp8",
               "the per-shape choice measured on the H100: cuda.gemm_fp8.skinny where it led cuBLASLt "
               "(M <= 16; every scaling up to 32 MiB of weight, per-channel at any size, block scales "
               "up to M 4), cuda.gemm_fp8.cublaslt's path otherwise",
               OPCERT_DEVICE_CUDA},
              sdk::parse_gemm_fp8, [&ctx](const Fp8Args& g) { run_tuned(ctx, g); },
              [&ctx](const Fp8Args& g) { return support_with(ctx, g, tuned_unsupported); })};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "gemm_fp8", gemm_fp8_implementations)

}  // namespace opcert::cuda
