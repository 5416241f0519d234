// Packing of GEMM operands that bf16 holds exactly (bf16, fp8 e4m3fn and e5m2) into the K-pair
// panels of the AVX512-BF16 kernel (gemm_kernels.h, PairMicroKernel), and the check that keeps
// that kernel's results those of exact products summed in fp32.
//
// vdpbf16ps reads subnormal inputs as zero and flushes subnormal results to zero. Neither can
// happen when no input is subnormal and every product is a multiple of 2^-126: then every partial
// sum is too, and a nonzero multiple of 2^-126 is a normal number. A product of bf16 values with
// biased exponents ea and eb is a multiple of 2^(ea - 134) * 2^(eb - 134), hence the rule below
// on the least nonzero magnitudes of the two operands (docs/TOLERANCES.md, "Dot-product
// instructions").
#pragma once

#include <cstdint>

#include "ops/gemm_kernels.h"
#include "ops/gemm_pack.h"

namespace opcert::cpu {

/// True when bf16 operands whose least nonzero magnitudes (bits & 0x7FFF, 0 for none) are
/// least_a and least_b give vdpbf16ps no subnormal to flush: no input subnormal, every product
/// a multiple of 2^-126. A zero operand (least 0) has no products at all.
inline bool pair_products_exact(uint16_t least_a, uint16_t least_b) {
  if (least_a == 0 || least_b == 0) return true;
  const int exponent_a = least_a >> 7, exponent_b = least_b >> 7;  // biased; 0 is subnormal
  return exponent_a >= 1 && exponent_b >= 1 && exponent_a + exponent_b >= 2 * 134 - 126;
}

/// The lesser of two least nonzero magnitudes, 0 standing for none.
inline uint16_t least_nonzero(uint16_t x, uint16_t y) { return x == 0 ? y : y == 0 ? x : (x < y ? x : y); }

/// True when the pair kernel can take operands of `dtype`: bf16 holds all their values exactly.
bool pairs_hold(int32_t dtype);

/// Packs rows [r0, r0 + rows) and depth [k0, k0 + kc) of `src` (a dtype pairs_hold accepts) into
/// ceil(rows / R) panels of ceil(kc / 2) x R words (panel p at dst + p * ceil(kc / 2) * R; the
/// pair of row r holding depth k0 + 2q and k0 + 2q + 1 at q * R + r); rows past `rows` and depth
/// past kc are zero. Returns the least nonzero magnitude packed (for pair_products_exact).
uint16_t pack_pair_panels(const MatrixView& src, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R,
                          uint32_t* dst, const PairKernel& kernel);

/// The least nonzero magnitude of `count` bf16 values (0 when all are zero).
uint16_t least_bf16_magnitude(const uint16_t* values, int64_t count);

}  // namespace opcert::cpu
