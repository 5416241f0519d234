// K-pair packing: depth-contiguous bf16 rows through the kernel's fast path when it has one,
// everything else (B as [K, N], fp8) through the loops below.
#include "ops/gemm_pack_pairs.h"

#include <opcert/backend_abi.h>

#include <algorithm>
#include <array>

#include "ops/cpu_numeric.h"

namespace opcert::cpu {
namespace {

// Stored element -> bf16 bits: bf16 as it is, fp8 through a table of its exact bf16 codes.
struct LoadBf16Bits {
  using Stored = uint16_t;
  uint16_t operator()(uint16_t v) const { return v; }
};
struct LoadFp8Bits {
  using Stored = uint8_t;
  const uint16_t* table;
  uint16_t operator()(uint8_t v) const { return table[v]; }
};

template <float (*Decode)(uint8_t)>
const uint16_t* fp8_bf16_table() {
  static const std::array<uint16_t, 256> table = [] {
    std::array<uint16_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) t[i] = f32_to_bf16(Decode(static_cast<uint8_t>(i)));  // exact: bf16 holds fp8
    return t;
  }();
  return table.data();
}

uint16_t magnitude(uint16_t bits) { return bits & 0x7FFFu; }

template <class Load>
uint16_t pack_pairs(const MatrixView& src, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R, uint32_t* dst,
                    Load load) {
  using Stored = typename Load::Stored;
  const auto* base = static_cast<const Stored*>(src.data);
  const int64_t kc2 = (kc + 1) / 2;
  // Minimum of (magnitude - 1) in unsigned 16 bits: zeros wrap to 0xFFFF and drop out.
  uint16_t least_less_one = 0xFFFF;
  auto word = [&](uint16_t lo, uint16_t hi) {
    least_less_one = std::min<uint16_t>(least_less_one, static_cast<uint16_t>(magnitude(lo) - 1));
    least_less_one = std::min<uint16_t>(least_less_one, static_cast<uint16_t>(magnitude(hi) - 1));
    return static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
  };
  for (int64_t p0 = 0; p0 < rows; p0 += R) {
    const int64_t live = std::min<int64_t>(R, rows - p0);
    uint32_t* panel = dst + (p0 / R) * kc2 * R;
    if (live < R) std::fill(panel, panel + kc2 * R, 0u);
    for (int64_t q = 0; q < kc2; ++q) {
      const int64_t k = k0 + 2 * q;
      const bool has_hi = 2 * q + 1 < kc;
      const Stored* lo_run = base + k * src.k_stride + (r0 + p0) * src.row_stride;
      uint32_t* out = panel + q * R;
      for (int64_t r = 0; r < live; ++r) {
        const Stored* at = lo_run + r * src.row_stride;
        out[r] = word(load(at[0]), has_hi ? load(at[src.k_stride]) : uint16_t{0});
      }
    }
  }
  return static_cast<uint16_t>(least_less_one + 1);
}

}  // namespace

bool pairs_hold(int32_t dtype) {
  return dtype == OPCERT_DTYPE_BF16 || dtype == OPCERT_DTYPE_F8_E4M3FN || dtype == OPCERT_DTYPE_F8_E5M2;
}

uint16_t pack_pair_panels(const MatrixView& src, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R,
                          uint32_t* dst, const PairKernel& kernel) {
  if (src.dtype == OPCERT_DTYPE_BF16 && src.k_stride == 1 && kernel.pack_bf16 != nullptr) {
    const int64_t kc2 = (kc + 1) / 2;
    uint16_t least = 0;
    for (int64_t p0 = 0; p0 < rows; p0 += R) {
      const auto* first = static_cast<const uint16_t*>(src.data) + (r0 + p0) * src.row_stride + k0;
      const int64_t live = std::min<int64_t>(R, rows - p0);
      least = least_nonzero(least, kernel.pack_bf16(first, src.row_stride, live, kc, R, dst + (p0 / R) * kc2 * R));
    }
    return least;
  }
  switch (src.dtype) {
    case OPCERT_DTYPE_BF16: return pack_pairs(src, r0, rows, k0, kc, R, dst, LoadBf16Bits{});
    case OPCERT_DTYPE_F8_E4M3FN: return pack_pairs(src, r0, rows, k0, kc, R, dst, LoadFp8Bits{fp8_bf16_table<e4m3_to_f32>()});
    case OPCERT_DTYPE_F8_E5M2: return pack_pairs(src, r0, rows, k0, kc, R, dst, LoadFp8Bits{fp8_bf16_table<e5m2_to_f32>()});
    default: return 0;
  }
}

uint16_t least_bf16_magnitude(const uint16_t* values, int64_t count) {
  uint16_t least_less_one = 0xFFFF;
  for (int64_t i = 0; i < count; ++i)
    least_less_one = std::min<uint16_t>(least_less_one, static_cast<uint16_t>(magnitude(values[i]) - 1));
  return static_cast<uint16_t>(least_less_one + 1);
}

}  // namespace opcert::cpu
