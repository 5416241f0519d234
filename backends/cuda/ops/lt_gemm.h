// A GEMM problem for cuBLASLt as given, or, when cuBLASLt has no algorithm for it (fp8 and int8
// tensor cores want K and the leading dimensions in multiples of 16), padded with zeros to K and N
// multiples of 16 in scratch buffers, the valid columns copied back. Zeros add nothing to the sums.
#pragma once

#include <opcert/sdk/backend.h>

#include <optional>
#include <string>

#include "cuda_context.h"
#include "ops/lt_matmul.h"

namespace opcert::cuda {

struct ElementBytes {
  int a = 0, b = 0, c = 0;
};

/// Why neither the problem nor its padded form has an algorithm; nullopt when one does.
std::optional<std::string> lt_gemm_unsupported(CudaContext& ctx, const LtProblem& p);

/// A query's answer: yes for an empty problem (no GEMM runs: an empty output, or K = 0), else
/// whether lt_gemm_unsupported finds an algorithm.
sdk::Support lt_gemm_support(CudaContext& ctx, const LtProblem& p);

/// Queues the GEMM. With ScaleMode::kOuterVector the b_scale vector is padded along with N.
void lt_gemm_run(CudaContext& ctx, const LtProblem& p, const LtOperands& o, ElementBytes bytes);

}  // namespace opcert::cuda
