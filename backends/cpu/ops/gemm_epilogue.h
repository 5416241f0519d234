// The shared tail of the float-output GEMM epilogues: a finished tile's values, scaled per
// element by the caller, plus the bias, rounded once into the output dtype a row chunk at a time.
#pragma once

#include <opcert/sdk/op_call.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "ops/cpu_numeric.h"
#include "ops/gemm_kernels.h"

namespace opcert::cpu {

/// The bias [N] decoded from `dtype` to fp32; empty when there is none.
inline std::vector<float> bias_as_f32(const std::optional<sdk::Tensor>& bias, int32_t dtype, int64_t n) {
  std::vector<float> out(static_cast<std::size_t>(bias ? n : 0));
  if (bias) load_f32_run(dtype, bias->data(), 0, out.data(), n);
  return out;
}

/// Rounds runs of fp32 values into the output: the kernel set's 16-bit rounding where it has one
/// (the same bits), else store_f32_run.
struct OutputStore {
  Half16StoreRun bf16 = nullptr;
  Half16StoreRun fp16 = nullptr;

  explicit OutputStore(const F32Kernel& kernel) : bf16(kernel.store_bf16), fp16(kernel.store_fp16) {}
  void operator()(int32_t dtype, void* out, int64_t offset, const float* values, int64_t n) const {
    const Half16StoreRun fast = dtype == OPCERT_DTYPE_BF16 ? bf16 : dtype == OPCERT_DTYPE_F16 ? fp16 : nullptr;
    if (fast != nullptr)
      fast(values, n, static_cast<uint16_t*>(out) + offset);
    else
      store_f32_run(dtype, out, offset, values, n);
  }
};

/// Writes the mc x nc tile at (m0, n0) of a row-major output with row stride `n`: element
/// (i, col) is value(i, col, jt) + bias[col] (no bias when empty), where i is the tile row, col
/// the output column and jt = col - n0 the tile column (for indexing the accumulator).
template <class Value>
inline void store_tile(const OutputStore& store, int32_t out_dtype, void* out, int64_t n, const std::vector<float>& bias,
                       int64_t m0, int64_t n0, int64_t mc, int64_t nc, Value&& value) {
  float row[1024];
  for (int64_t i = 0; i < mc; ++i) {
    for (int64_t j0 = 0; j0 < nc; j0 += 1024) {
      const int64_t len = std::min<int64_t>(1024, nc - j0);
      for (int64_t j = 0; j < len; ++j) {
        const int64_t col = n0 + j0 + j;
        const float v = value(i, col, j0 + j);
        row[j] = bias.empty() ? v : v + bias[col];
      }
      store(out_dtype, out, (m0 + i) * n + n0 + j0, row, len);
    }
  }
}

}  // namespace opcert::cpu
