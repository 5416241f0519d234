// fp8 e4m3fn / e5m2 <-> fp32 for tensors held as raw bytes (kByte). LibTorch 1.13 has no fp8
// dtype, so there the bytes are decoded through a 256-entry table and encoded on the host;
// from 2.1 on, torch's own fp8 dtypes do both.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

namespace opcert::torch_backend {

/// The fp32 value of one fp8 code (dtype is OPCERT_DTYPE_F8_E4M3FN or _E5M2).
float fp8_decode(uint8_t code, int32_t dtype);

/// The fp8 code nearest to x, ties to even. e4m3fn saturates to ±448 (infinities included) and
/// keeps NaN; e5m2 is IEEE: overflow gives ±inf.
uint8_t fp8_encode(float x, int32_t dtype);

/// fp32 tensor of the values of an fp8 byte tensor, on its device.
at::Tensor fp8_to_float(const at::Tensor& bytes, int32_t dtype);

/// The values of an fp8 byte tensor as `type` (one cast, as a torch user's `x.to(type)`; before
/// 2.1 through fp32, which holds every fp8 value), on its device.
at::Tensor fp8_to(const at::Tensor& bytes, int32_t dtype, at::ScalarType type);

/// fp8 byte tensor (kByte) of a floating tensor's values, rounded as fp8_encode does.
/// `in_range`: x is already within the format's finite range (a quantizer clamped it), so the
/// saturating clamp is skipped, as a torch user's `.to(torch.float8_e4m3fn)` after a clamp.
at::Tensor float_to_fp8(const at::Tensor& x, int32_t dtype, bool in_range = false);

}  // namespace opcert::torch_backend
