// avg's second half where NCCL's own avg would round differently from the contract
// (collective_plan.h, AvgStrategy::kSumThenDivide): every element of an exact sum divided by the
// rank count in fp32 and rounded once into its dtype, as the reference does (docs/OPS.md).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace opcert::cuda {

/// data[i] = data[i] / n for `count` elements of `dtype` (fp32, fp16 or bf16), queued on
/// `stream`. Throws sdk::Error for another dtype or a failed launch.
void divide_by_ranks(void* data, int64_t count, int32_t dtype, int n, cudaStream_t stream);

}  // namespace opcert::cuda
