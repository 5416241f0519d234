// How the naive ops read and write elements: exactly, through the harness's codec (model/), so
// that a correct twin rounds once from fp64 as the reference does; a rounding defect (truncated,
// half away, odd) misrounds the stored value. Shared by every file of ops/.
#pragma once

#include <opcert/sdk/op_call.h>

#include <cstdint>
#include <optional>

#include "defect.h"

namespace opcert::mutants {

/// Element i of t, exactly, as fp64.
double ld(const sdk::Tensor& t, int64_t i);

/// Stores v into element i of t, rounded to nearest even, or misrounded by a rounding defect.
void st(const sdk::Tensor& t, int64_t i, double v, Defect defect = Defect::kNone);

/// Whether t holds a NaN or an infinity anywhere.
bool any_non_finite(const sdk::Tensor& t);

/// fp8 attention: the factor of descale [B, Hkv] for batch entry b and KV head g; 1 when not given.
double descale_of(const std::optional<sdk::Tensor>& descale, int64_t b, int64_t g, int64_t hkv);

}  // namespace opcert::mutants
