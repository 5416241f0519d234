// The shapes every quantized GEMM of the contract shares: a [M, K], b [N, K] (the weight, K
// contiguous), c [M, N].
#pragma once

#include <opcert/sdk/call_check.h>

#include <cstdint>

namespace opcert::sdk {

struct GemmDims {
  int64_t m = 0, n = 0, k = 0;
};

/// Checks the ranks, then the shapes against a's and b's leading dims; problems go to `check`.
/// The dims are read from a and b (all zero when a rank is wrong).
inline GemmDims check_gemm_shapes(CallCheck& check, const Tensor& a, const Tensor& b, const Tensor& c) {
  check.require(a.ndim() == 2, "a must be 2-D [M, K]");
  check.require(b.ndim() == 2, "b must be 2-D [N, K]");
  if (a.ndim() != 2 || b.ndim() != 2) return {};
  const GemmDims d{a.dim(0), b.dim(0), a.dim(1)};
  check.shape(b, {d.n, d.k}, "[N, K]");
  check.shape(c, {d.m, d.n}, "[M, N]");
  return d;
}

}  // namespace opcert::sdk
