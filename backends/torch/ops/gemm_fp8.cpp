// gemm_fp8 as a torch user calls it on CUDA: torch._scaled_mm for per-tensor and row-wise scales
// (LibTorch >= 2.5), torch.nn.functional.scaled_mm with the BlockWise1x128 x BlockWise128x128
// recipe for DeepSeek-style block scales (LibTorch with _scaled_mm_v2, 2.10 on). Where torch has
// no fused call (the host, e5m2 x e5m2, a bias with fp32 output, other block sizes) or refuses
// one, torch's decomposition: decode fp8 to fp32, matmul in fp32 (fp8 products are exact in
// fp32), apply the scales, add the bias, round once to the output. query_op names the route; once
// torch has refused a fused call at run time, it names what ran in its place, with torch's reason
// (a bench record names what it timed: harness/bench asks after the first run): for the block
// recipe at an M below the smallest torch takes, what its user runs, a padded to that M (copied
// into a kept zero buffer), the call, the result's first M rows; else the decomposition.
// Operands: the SDK's parse_gemm_fp8.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/gemm_fp8.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "fp8_codec.h"
#include "kept_buffers.h"
#include "tensor_bridge.h"
#include "torch_implementations.h"
#include "torch_version.h"

#if __has_include(<ATen/ops/_scaled_mm_v2.h>)
#define OPCERT_TORCH_HAS_SCALED_MM_V2 1
#else
#define OPCERT_TORCH_HAS_SCALED_MM_V2 0
#endif

namespace opcert::torch_backend {
namespace {

enum class Route { kScaledMm, kScaledMmBlockwise, kDecomposition };

bool e4m3(const std::optional<sdk::Tensor>& t) { return t->dtype() == OPCERT_DTYPE_F8_E4M3FN; }

// Which call runs the operands, and, for the decomposition, why torch's fused call does not.
Route route(const sdk::GemmFp8Operands& g, std::string* why = nullptr) {
  auto decompose = [why](const char* reason) {
    if (why) *why = reason;
    return Route::kDecomposition;
  };
  if (g.a->device().type != OPCERT_DEVICE_CUDA) return decompose("torch's fused fp8 GEMM runs on CUDA only");
  if (g.scaling == sdk::Fp8Scaling::kBlock) {
    if (!OPCERT_TORCH_HAS_SCALED_MM_V2) return decompose("this LibTorch has no block-scaled scaled_mm (2.10 on)");
    if (g.block != 128 || !e4m3(g.a) || !e4m3(g.b))
      return decompose("torch's block recipe is e4m3 with 1x128 and 128x128 blocks");
    if (g.k % 128 != 0 || g.n % 128 != 0) return decompose("torch's block recipe needs K and N multiples of 128");
    return Route::kScaledMmBlockwise;
  }
  if (!OPCERT_TORCH_AT_LEAST(2, 5)) return decompose("this LibTorch has no _scaled_mm (2.5 on)");
  if (g.k % 16 != 0 || g.n % 16 != 0) return decompose("torch._scaled_mm needs K and N multiples of 16");
  if (!e4m3(g.a) && !e4m3(g.b)) return decompose("torch._scaled_mm refuses e5m2 x e5m2");
  if (g.bias && g.c->dtype() == OPCERT_DTYPE_F32) return decompose("torch._scaled_mm refuses a bias with fp32 output");
  return Route::kScaledMm;
}

// The rows a torch 2.11 user pads to for the block-scaled F.scaled_mm: on the H200 it refused M 1
// for every layout of scale_a (ci/gpu/probes/torch_block_fp8_m1.py), M 1 and 4 for row-major ones,
// and took 16 rows with outer-dim-major scales (ci/gpu/probes/torch_varlen_routes.py). Below 16
// the peer pads only once torch has refused both layouts at M.
constexpr int64_t kSmallestBlockM = 16;

// A call torch refused at run time: the first line of its error, and the rows a padded to which
// torch takes the call (0: none, the decomposition runs).
struct Refusal {
  std::string error;
  int64_t padded_m = 0;
};

// The calls torch refused at run time, by their operands' shape and dtypes (a refusal may hang on
// M alone: strides of an [M, K/128] scale at M = 1).
class Refusals {
 public:
  static std::string key(const sdk::GemmFp8Operands& g) {
    return std::to_string(static_cast<int>(g.scaling)) + ' ' + std::to_string(g.a->dtype()) + ' ' +
           std::to_string(g.b->dtype()) + ' ' + std::to_string(g.c->dtype()) + ' ' + std::to_string(g.bias.has_value()) +
           ' ' + std::to_string(g.m) + ' ' + std::to_string(g.n) + ' ' + std::to_string(g.k) + ' ' +
           std::to_string(g.a->device().index);
  }
  void add(const sdk::GemmFp8Operands& g, const std::string& error) {
    const std::lock_guard<std::mutex> lock(mutex_);
    by_call_.emplace(key(g), Refusal{error.substr(0, error.find('\n'))});  // the first refusal stays
    any_.store(true, std::memory_order_release);
  }
  // Torch took the refused call with a padded to `rows` rows.
  void set_padded(const sdk::GemmFp8Operands& g, int64_t rows) {
    const std::lock_guard<std::mutex> lock(mutex_);
    by_call_[key(g)].padded_m = rows;
  }
  std::optional<Refusal> find(const sdk::GemmFp8Operands& g) const {
    // run() asks before every launch, inside the timed region: without a refusal, one load.
    if (!any_.load(std::memory_order_acquire)) return std::nullopt;
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = by_call_.find(key(g));
    return it == by_call_.end() ? std::nullopt : std::optional<Refusal>(it->second);
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Refusal> by_call_;
  std::atomic<bool> any_{false};
};

Refusals& refusals() {
  static Refusals r;
  return r;
}

const char* torch_dtype_name(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_BF16: return "torch.bfloat16";
    case OPCERT_DTYPE_F16: return "torch.float16";
    default: return "torch.float32";
  }
}

// The fused call of a route, as a torch user writes it.
std::string fused_call(Route r, const sdk::GemmFp8Operands& g) {
  const std::string bias = g.bias ? ", bias=bias" : "";
  const std::string out = torch_dtype_name(g.c->dtype());
  if (r == Route::kScaledMmBlockwise)
    return "torch.nn.functional.scaled_mm(a, b.t(), scale_a, ScalingType.BlockWise1x128, scale_b.t(), "
           "ScalingType.BlockWise128x128" + bias + ", output_dtype=" + out + ")";
  return g.scaling == sdk::Fp8Scaling::kChannel
             ? "torch._scaled_mm(a, b.t(), scale_a[M,1], scale_b[1,N]" + bias + ", out_dtype=" + out + ")"
             : "torch._scaled_mm(a, b.t(), scale_a, scale_b" + bias + ", out_dtype=" + out + ")";
}

// The rows torch's user pads a to when torch refuses the call at M (0: no padding helps).
int64_t padded_rows(Route r, const sdk::GemmFp8Operands& g) {
  return r == Route::kScaledMmBlockwise && g.m < kSmallestBlockM ? kSmallestBlockM : 0;
}

std::string library_call(const sdk::GemmFp8Operands& g) {
  std::string why;
  if (const Route r = route(g, &why); r != Route::kDecomposition) {
    const std::optional<Refusal> refused = refusals().find(g);
    if (!refused) return fused_call(r, g);
    const std::string rows = std::to_string(refused->padded_m);
    if (refused->padded_m > 0)
      return fused_call(r, g) + " on a padded to M=" + rows + ": a and scale_a copied into the first M rows of kept zero [" +
             rows + ", K] and outer-dim-major [" + rows + ", K/128] buffers, the call, out[:M] (torch refused M=" +
             std::to_string(g.m) + ": " + refused->error + ")";
    why = "torch refused " + fused_call(r, g) + ": " + refused->error;
  }
  return "decomposition: fp8 decoded to fp32, torch.mm" +
         std::string(g.scaling == sdk::Fp8Scaling::kBlock ? " per 128-wide K block" : "") + ", scales, bias (" + why + ")";
}

at::ScalarType native_fp8(const sdk::Tensor& t) {
#if OPCERT_TORCH_AT_LEAST(2, 1)
  return t.dtype() == OPCERT_DTYPE_F8_E5M2 ? at::kFloat8_e5m2 : at::kFloat8_e4m3fn;
#else
  (void)t;
  throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, "this LibTorch has no fp8 dtype");
#endif
}

#if OPCERT_TORCH_HAS_SCALED_MM_V2
// F.scaled_mm(a8, b8.t(), sa, BlockWise1x128, b_scale.t(), BlockWise128x128, ...).
at::Tensor blockwise(const at::Tensor& a8, const at::Tensor& b8, const at::Tensor& sa, const at::Tensor& b_scale,
                     const c10::optional<at::Tensor>& bias, at::ScalarType out_dtype) {
  // The enum values of torch.nn.functional.ScalingType and SwizzleType.
  constexpr int64_t kBlockWise1x128 = 4, kBlockWise128x128 = 5, kNoSwizzle = 0;
  return at::_scaled_mm_v2(a8, b8.t(), {sa}, {kBlockWise1x128}, {kNoSwizzle}, {b_scale.t()}, {kBlockWise128x128},
                           {kNoSwizzle}, bias, out_dtype, {}, /*use_fast_accum=*/false);
}
#endif

// What torch's user runs where torch refuses the block-scaled call at M: a and scale_a copied into
// the first M rows of kept zero buffers of `rows` rows (scale_a's outer-dim-major, the layout torch
// 2.11 asks for at 16 rows), the call, the result's first M rows. nullopt (the refusal kept) where
// torch refuses that too. The copies are timed, as its user's are; the buffers are made once.
c10::optional<at::Tensor> padded(const sdk::GemmFp8Operands& g, const at::Tensor& a, const at::Tensor& b,
                                 const at::Tensor& a_scale, const at::Tensor& b_scale,
                                 const c10::optional<at::Tensor>& bias, at::ScalarType out_dtype, int64_t rows) {
#if OPCERT_TORCH_HAS_SCALED_MM_V2
  try {
    const int64_t m = a.size(0), k = a.size(1), kb = a_scale.size(1);
    const at::Tensor a_pad = kept_buffer("gemm_fp8.padded_a", {rows, k}, {}, a.options());
    const at::Tensor sa_pad = kept_buffer("gemm_fp8.padded_scale_a", {rows, kb}, {1, rows}, a_scale.options());
    a_pad.narrow(0, 0, m).copy_(a);
    sa_pad.narrow(0, 0, m).copy_(a_scale);
    return blockwise(a_pad.view(native_fp8(*g.a)), b.view(native_fp8(*g.b)), sa_pad, b_scale, bias, out_dtype)
        .narrow(0, 0, m);
  } catch (const c10::OutOfMemoryError&) {
    throw;
  } catch (const c10::Error& e) {
    refusals().add(g, e.what_without_backtrace());  // the first refusal (at M) stays the one named
    refusals().set_padded(g, 0);
  }
#endif
  (void)g, (void)a, (void)b, (void)a_scale, (void)b_scale, (void)bias, (void)out_dtype, (void)rows;
  return c10::nullopt;
}

#if OPCERT_TORCH_HAS_SCALED_MM_V2
// The M at which torch refused the contract's row-major scale_a for the block recipe.
class MSet {
 public:
  bool has(int64_t m) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return ms_.count(m) > 0;
  }
  void add(int64_t m) {
    const std::lock_guard<std::mutex> lock(mutex_);
    ms_.insert(m);
  }

 private:
  mutable std::mutex mutex_;
  std::set<int64_t> ms_;
};
MSet& outer_major_m() {
  static MSet s;
  return s;
}
#endif

// torch's fused call for the route, or nullopt where torch refuses it at run time (a GPU it does
// not support), so that the decomposition runs instead; the refusal is kept for library_call.
c10::optional<at::Tensor> fused(Route r, const sdk::GemmFp8Operands& g, const at::Tensor& a, const at::Tensor& b,
                                const at::Tensor& a_scale, const at::Tensor& b_scale,
                                const c10::optional<at::Tensor>& bias, at::ScalarType out_dtype) {
  try {
    const at::Tensor a8 = a.view(native_fp8(*g.a)), b8 = b.view(native_fp8(*g.b));
#if OPCERT_TORCH_HAS_SCALED_MM_V2
    if (r == Route::kScaledMmBlockwise) {
      auto call = [&](const at::Tensor& sa) { return blockwise(a8, b8, sa, b_scale, bias, out_dtype); };
      // The contract's a_scale is row-major; where torch wants it outer-dim-major (strides (1, M))
      // it refuses it once for that M, and from then on gets one copy of M*K/128 floats per call.
      // The copy is laid out with empty_strided: at M = 1, `.t().contiguous().t()` keeps the
      // row-major strides (a [K/128, 1] tensor counts as contiguous whatever its second stride),
      // and torch 2.11 refused that on the H100 ("scale_a must have strides (1, 1)"). Per M:
      // torch 2.11 asked for (1, 16) at 16 rows on the H200, and took row-major at M 8192 on the H100.
      const int64_t m = a_scale.size(0);
      if (!outer_major_m().has(m)) {
        try {
          return call(a_scale);
        } catch (const c10::Error&) {
          outer_major_m().add(m);
        }
      }
      return call(at::empty_strided(a_scale.sizes(), {1, std::max<int64_t>(m, 1)}, a_scale.options()).copy_(a_scale));
    }
#endif
#if OPCERT_TORCH_AT_LEAST(2, 5)
    if (r == Route::kScaledMm) {
      const bool rowwise = g.scaling == sdk::Fp8Scaling::kChannel;
      return at::_scaled_mm(a8, b8.t(), rowwise ? a_scale.view({-1, 1}) : a_scale,
                            rowwise ? b_scale.view({1, -1}) : b_scale, bias, c10::nullopt, out_dtype,
                            /*use_fast_accum=*/false);
    }
#endif
  } catch (const c10::OutOfMemoryError&) {
    throw;  // not a refusal of the call: the next launch may well take it
  } catch (const c10::Error& e) {
    refusals().add(g, e.what_without_backtrace());
  }
  (void)r, (void)g, (void)a, (void)b, (void)a_scale, (void)b_scale, (void)bias, (void)out_dtype;
  return c10::nullopt;
}

// Σ_j a_scale[m,j]·b_scale[n/bs,j]·(a_j·b_jᵀ) over K blocks j, in fp32, one matmul per block.
at::Tensor block_scaled(const at::Tensor& af, const at::Tensor& bf, const at::Tensor& a_scale, const at::Tensor& b_scale,
                        int64_t block) {
  const int64_t k = af.size(1), n = bf.size(0);
  at::Tensor acc = at::zeros({af.size(0), n}, af.options());
  // b_scale rows are per 128 output channels: expand to one row per channel.
  const at::Tensor b_scale_rows = b_scale.repeat_interleave(block, 0).narrow(0, 0, n);
  for (int64_t j = 0; j * block < k; ++j) {
    const int64_t width = std::min(block, k - j * block);
    const at::Tensor partial = at::mm(af.narrow(1, j * block, width), bf.narrow(1, j * block, width).t());
    acc.add_(partial * a_scale.select(1, j).unsqueeze(1) * b_scale_rows.select(1, j).unsqueeze(0));
  }
  return acc;
}

void run(const sdk::GemmFp8Operands& g) {
  const sdk::Tensor& out = *g.c;
  const at::ScalarType out_dtype = scalar_type(out.dtype());
  const at::Tensor a = wrap(*g.a), b = wrap(*g.b);
  const at::Tensor a_scale = wrap(*g.a_scale), b_scale = wrap(*g.b_scale);
  const c10::optional<at::Tensor> bias = wrap(g.bias);
  // A call torch refused once goes straight to what runs in its place (the padded call, else the
  // decomposition): the timed launch holds what library_call names and no refused attempt before it.
  if (const Route r = route(g); r != Route::kDecomposition) {
    std::optional<Refusal> refused = refusals().find(g);
    if (!refused) {
      if (auto result = fused(r, g, a, b, a_scale, b_scale, bias, out_dtype)) return write_output(out, *result);
      if (const int64_t rows = padded_rows(r, g); rows > 0)
        if (auto result = padded(g, a, b, a_scale, b_scale, bias, out_dtype, rows)) {
          refusals().set_padded(g, rows);
          return write_output(out, *result);
        }
      refused = refusals().find(g);
    }
    if (refused && refused->padded_m > 0)
      if (auto result = padded(g, a, b, a_scale, b_scale, bias, out_dtype, refused->padded_m))
        return write_output(out, *result);
  }
  const at::Tensor af = fp8_to_float(a, g.a->dtype()), bf = fp8_to_float(b, g.b->dtype());
  at::Tensor acc;
  if (g.scaling == sdk::Fp8Scaling::kBlock) {
    acc = block_scaled(af, bf, a_scale, b_scale, g.block);
  } else if (g.scaling == sdk::Fp8Scaling::kChannel) {
    acc = at::mm(af, bf.t()) * a_scale.unsqueeze(1) * b_scale.unsqueeze(0);
  } else {
    acc = at::mm(af, bf.t()) * (a_scale * b_scale);
  }
  if (bias) acc = acc + bias->to(at::kFloat);
  write_output(out, acc.to(out_dtype));
}

std::vector<sdk::Implementation> gemm_fp8_implementations() {
  return {sdk::checked_implementation(
      {"torch.gemm_fp8.native", "gemm_fp8",
       "torch._scaled_mm (per-tensor, row-wise) or F.scaled_mm BlockWise1x128 x BlockWise128x128 on CUDA, else "
       "fp8 decoded to fp32, at::mm, scales, bias",
       operand_device_type()},
      sdk::parse_gemm_fp8, run, nullptr, library_call)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(TorchImplementations, "gemm_fp8", gemm_fp8_implementations)

}  // namespace opcert::torch_backend
