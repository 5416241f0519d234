// The golden reference of the GEMM family (the plain, fp8 and int8 GEMMs): c[m,n] = sum over
// K-blocks j of a_weight[m,j] * b_weight[n,j] * sum_{k in block j} a[m,k] * b[n,k], plus bias[n].
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "model/host_tensor.h"
#include "reference/reference.h"

namespace opcert::ops::common {

struct ScaledDot {
  const HostTensor* a = nullptr;  // [M, K]
  const HostTensor* b = nullptr;  // [N, K], or [K, N] when b_is_kn
  bool b_is_kn = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t block_k = 0;            // K-length of a scale block; 0: one block spanning K
  at::Tensor a_weight;            // fp64 [M, blocks], or undefined (all ones)
  at::Tensor b_weight;            // fp64 [N, blocks], or undefined (all ones)
  at::Tensor bias;                // fp64 [N], or undefined
};

/// The output `name` ([M, N]): values = the exact formula, magnitude = the same formula over
/// absolute values of every factor, no condition. `sample` selects flat indices (nullptr: all).
/// NaN and Inf propagate as IEEE arithmetic on the formula would.
ReferenceOutput scaled_dot_reference(const std::string& name, const ScaledDot& problem,
                                     const std::vector<int64_t>* sample);

}  // namespace opcert::ops::common
