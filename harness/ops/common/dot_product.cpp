#include "ops/common/dot_product.h"

#include <opcert/sdk/ops/gemm.h>

#include <algorithm>
#include <cmath>

#include "model/scalar_codec.h"

namespace opcert::ops::common {

namespace dot = sdk::gemm_names;  // every GEMM's a and c (gemm_fp8's and gemm_int8's are spelled alike)

void dot_product_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t, double sum_roundoff,
                           double input_roundoff) {
  const TensorSpec* a = c.find_input(dot::kA);
  const double k = a && !a->shape.empty() ? static_cast<double>(a->shape.back()) : 1.0;
  const double floor = least_subnormal(t.dtype);
  if (c.fill_mode != FillMode::kRandom) {
    // Exact and rounding fills: every partial sum is representable (small integers are exact in
    // TF32 too), so the value before the final rounding is exact and that rounding is known, ties
    // included.
    // The final rounding errs by at most u|held|, reached by a tie that rounds down to a power of
    // two (the spacing below one is half the spacing above): the bound keeps its 2u so that a
    // correct result never touches it, and the bits are judged by the rounding check (noise 0:
    // every element is decided, so one ulp off fails there).
    t.absolute = [=](std::size_t) { return floor; };
    t.noise = [](std::size_t) { return 0.0; };
    return;
  }
  // A product of inputs each rounded by u_in errs by up to (2 u_in + u_in^2)|a·b|, for any K.
  const double input_rounding = 2.0 * input_roundoff + input_roundoff * input_roundoff;
  // fp32 accumulation: about sqrt(K) roundings of the running sum, each at most u_sum · sum|a·b|,
  // doubled for margin; scales add a few more roundings.
  const double growth = 2.0 * std::sqrt(std::max(k, 1.0)) + 4.0;
  const ReferenceOutput* r = &ref;
  t.absolute = [=](std::size_t i) { return floor + (growth * sum_roundoff + input_rounding) * r->magnitude_at(i); };
}

WorkModel dot_product_work(const Case& c, std::string peak_key) {
  const auto& a = work_operand(c, dot::kA, 2);
  const auto& out = work_operand(c, dot::kC, 2);
  const double m = static_cast<double>(a.shape[0]), k = static_cast<double>(a.shape[1]);
  const double n = static_cast<double>(out.shape[1]);  // from c: the same whatever b's layout is
  return {2 * m * n * k, operand_bytes(c), std::move(peak_key), true};
}

}  // namespace opcert::ops::common
