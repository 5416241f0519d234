// Exact conversions between the storage dtypes and double. Decoding is exact; encoding rounds
// to nearest even, with each format's overflow rule (docs/OPS.md, conventions). No LibTorch:
// torch 1.13 has no fp8, and the harness must agree bit for bit with what backends store.
#pragma once

#include <opcert/backend_abi.h>

#include <cstddef>
#include <cstdint>

namespace opcert {

double decode_fp16(uint16_t bits);
double decode_bf16(uint16_t bits);
double decode_fp8_e4m3fn(uint8_t bits);  // 0x7F / 0xFF are NaN; no infinities
double decode_fp8_e5m2(uint8_t bits);

uint16_t encode_fp16(double value);
uint16_t encode_bf16(double value);
uint8_t encode_fp8_e4m3fn(double value);  // saturates to +-448; NaN -> 0x7F
uint8_t encode_fp8_e5m2(double value);    // IEEE: overflow -> +-inf

/// Round to nearest even into `dtype` and back: the value a backend storing `value` would hold.
/// int8 saturates to [-128, 127] and int32 to its range.
double round_to(opcert_dtype dtype, double value);

/// Store `value` rounded into `dtype` at `dst` (dtype_bytes(dtype) bytes).
void store_as(opcert_dtype dtype, double value, void* dst);

/// store_as over a run: values[i] at dst + i * dtype_bytes(dtype), the same bytes, faster.
void store_block(opcert_dtype dtype, const double* values, std::size_t n, void* dst);

/// Load the element at `src` exactly.
double load_from(opcert_dtype dtype, const void* src);

/// Distance in units in the last place between two finite values of `dtype`
/// (the number of representable values between them).
int64_t ulp_distance(opcert_dtype dtype, double a, double b);

/// Unit roundoff u = 2^-p of a floating dtype (fp32 2^-24, bf16 2^-8, ...); 0 for integers.
double unit_roundoff(opcert_dtype dtype);

/// The spacing of `dtype`'s values in the binade of |value| (the subnormal spacing below the
/// normal range; 1 for integers): the unit the rounding checks count errors in.
double grid_spacing(opcert_dtype dtype, double value);

/// Largest finite value of a dtype.
double max_finite(opcert_dtype dtype);

}  // namespace opcert
