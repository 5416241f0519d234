// The shapes every GEMM of the contract shares (docs/OPS.md "gemm", "gemm_fp8", "gemm_int8"):
// a [M, K], b the weight [N, K] (K contiguous; gemm also takes b as [K, N]), c [M, N].
#pragma once

#include <opcert/sdk/call_check.h>

#include <cstdint>

namespace opcert::sdk {

/// How gemm's b is stored: the weight [N, K] (b_layout "nk", the default) or [K, N] ("kn").
enum class BLayout { kNK, kKN };

struct GemmDims {
  int64_t m = 0, n = 0, k = 0;
};

/// Checks the ranks, then b's and c's shapes against M and K from a and N from b; problems go
/// to `check`. The dims are read from a and b (all zero when a rank is wrong).
inline GemmDims check_gemm_shapes(CallCheck& check, const Tensor& a, const Tensor& b, const Tensor& c,
                                  BLayout layout = BLayout::kNK) {
  const bool kn = layout == BLayout::kKN;
  const bool ranks = check.rank(a, 2, "[M, K]") && check.rank(b, 2, kn ? "[K, N]" : "[N, K]");
  if (!ranks) return {};
  const GemmDims d{a.dim(0), kn ? b.dim(1) : b.dim(0), a.dim(1)};
  if (kn)
    check.shape(b, {d.k, d.n}, "[K, N]");
  else
    check.shape(b, {d.n, d.k}, "[N, K]");
  check.shape(c, {d.m, d.n}, "[M, N]");
  return d;
}

}  // namespace opcert::sdk
