// What the GEMM family (the plain, fp8 and int8 GEMMs) shares besides its reference
// (scaled_dot.h): the bound of a dot product accumulated in fp32 and the work of an M×K by K×N
// product. Each GEMM's folder calls these with its own accumulation and input rounding.
#pragma once

#include <string>

#include "opkit/op_descriptor.h"

namespace opcert::ops::common {

/// The bound of output `c` (docs/TOLERANCES.md, the GEMM family). Exact fills: only the final
/// rounding. Random fills: about sqrt(K) roundings of the running sum, each at most
/// `sum_roundoff` times the element's conditioning (sum_k |a·b|), doubled for margin, plus
/// `input_roundoff` per product for inputs the backend may round first (TF32).
void dot_product_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t, double sum_roundoff,
                           double input_roundoff);

/// 2·M·N·K flops (one multiply and one add per (m, n, k); the epilogue is O(M·N), left out as in
/// vendors' peak figures), every operand's bytes once, judged by TFLOP/s against `peak_key`.
WorkModel dot_product_work(const Case& c, std::string peak_key);

}  // namespace opcert::ops::common
