#include "check/tolerance.h"

#include <cmath>
#include <stdexcept>

#include "model/scalar_codec.h"
#include "model/tf32.h"

namespace opcert {
namespace {

// Accumulation is fp32 for every op (docs/OPS.md); its unit roundoff.
constexpr double kAccumulationRoundoff = 0x1.0p-24;
constexpr double kFp8TensorCoreRoundoff = 0x1.0p-14;

int64_t last_dim(const TensorSpec* t) { return t && !t->shape.empty() ? t->shape.back() : 1; }

// Entries of a ReferenceOutput, with defaults for absent conditioning.
struct Element {
  const ReferenceOutput* ref;
  double value(std::size_t k) const { return ref->values[k]; }
  double magnitude(std::size_t k) const { return k < ref->magnitude.size() ? ref->magnitude[k] : std::fabs(value(k)); }
  double condition(std::size_t k) const { return k < ref->condition.size() ? ref->condition[k] : 1.0; }
};

// |v| of the expected value rounded into the output dtype: the output rounding is measured
// against what the dtype can hold, not the exact value (they differ near overflow).
double rounded_abs(opcert_dtype dtype, double v) {
  const double r = round_to(dtype, v);
  return std::isfinite(r) ? std::fabs(r) : std::fabs(v);
}

// The derived model of docs/TOLERANCES.md, op by op: the relative part is the output rounding,
// the absolute part the fp32 error carried by each element's conditioning.
void derive(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  const opcert_dtype T = t.dtype;
  const double u = unit_roundoff(T);
  const double ua = kAccumulationRoundoff;
  const double floor = least_subnormal(T);
  const Element e{&ref};
  // Round-to-nearest gives at most u|v|; one more ulp (2u|v| in all) covers an accumulated error
  // that tips the rounding the other way.
  t.relative = 2.0 * u;

  if (c.op == "gemm" || c.op == "gemm_fp8" || c.op == "gemm_int8") {
    const auto K = static_cast<double>(last_dim(c.find_input("a")));
    // Hopper's fp8 tensor cores keep about 14 significant bits in their accumulators (DeepSeek-V3
    // technical report, section 3.3.2), and torch's _scaled_mm on an H100 shows errors of that
    // size: the accumulation roundoff of gemm_fp8 is 2^-14, not fp32's.
    const double u_sum = c.op == "gemm_fp8" ? kFp8TensorCoreRoundoff : ua;
    // Input rounding: none, the backend multiplies the values it was given, unless an fp32 gemm
    // allows TF32, whose inputs may each be rounded by u_in; a product then errs by up to
    // (2 u_in + u_in^2)|a*b|, a worst case that holds for any K.
    const double u_in = c.op == "gemm" && allows_tf32(c) ? kTf32UnitRoundoff : 0.0;
    const double input_rounding = 2.0 * u_in + u_in * u_in;
    if (c.fill_mode == FillMode::kExact) {
      // Every partial sum is representable (and small integers are exact in TF32 too): only the
      // final rounding.
      t.relative = u;
      t.absolute = [=](std::size_t) { return floor; };
    } else {
      // fp32 accumulation: about sqrt(K) roundings of the running sum, each at most
      // ua * sum|a*b| (the conditioning), doubled for margin; scales add a few more roundings.
      const double growth = 2.0 * std::sqrt(std::max(K, 1.0)) + 4.0;
      t.absolute = [=](std::size_t k) { return floor + (growth * u_sum + input_rounding) * e.magnitude(k); };
    }
  } else if (c.op == "attention") {
    const auto D = static_cast<double>(last_dim(c.find_input("q")));
    const TensorSpec* kspec = c.find_input("k");
    const auto keys = static_cast<double>(kspec && kspec->shape.size() >= 3 ? kspec->shape[kspec->shape.size() - 3] : 1);
    // Scores may carry the input dtype's rounding (torch's math path rounds q·k to T) plus fp32
    // accumulation over D; a score error d moves the output by at most d * sum p|v - o|.
    // The scores' rounding is the inputs' dtype's, not the output's (lse is fp32 whatever T is).
    const TensorSpec* qspec = c.find_input("q");
    const double u_scores = std::max(qspec ? unit_roundoff(qspec->dtype) : u, ua);
    const auto score_error = [=](std::size_t k) { return (2.0 * u_scores + 2.0 * std::sqrt(D) * ua) * e.condition(k); };
    if (ref.name == "lse") {
      t.relative = 4.0 * ua;
      t.absolute = [=](std::size_t k) { return score_error(k) + 4.0 * ua * std::log2(keys + 1.0); };
    } else {
      // p may be rounded to T before p·v (FlashAttention does): another u * sum p|v|.
      t.absolute = [=](std::size_t k) {
        return floor + (2.0 * u + 2.0 * score_error(k) + 4.0 * std::sqrt(keys) * ua) * e.magnitude(k);
      };
    }
  } else if (c.op == "rms_norm" || c.op == "layer_norm") {
    const auto H = static_cast<double>(last_dim(c.find_input("x")));
    if (ref.name == "residual_out") {  // one rounding of an fp32 sum (2u: it may be rounded twice)
      t.relative = 2.0 * u;
      t.absolute = [=](std::size_t k) { return floor + ua * e.magnitude(k); };
    } else {
      // The mean of squares over H in fp32, then rsqrt and two products; plus two roundings into
      // T of intermediates (the normalised value, its product with the weight) before the bias
      // is added, as torch's CPU bf16 layer_norm does.
      const double growth = 2.0 * std::sqrt(H) + 8.0;
      t.absolute = [=](std::size_t k) { return floor + (growth * ua + 2.0 * u) * e.magnitude(k); };
    }
  } else if (c.op == "rope") {
    t.absolute = [=](std::size_t k) { return floor + 4.0 * ua * e.magnitude(k); };
  } else if (c.op == "softmax") {
    const auto N = static_cast<double>(last_dim(c.find_input("x")));
    // exp(x - max) carries the fp32 error of its argument (condition = max|x| + log N); the sum
    // over N adds about sqrt(N) roundings.
    t.absolute = [=](std::size_t k) { return floor + 4.0 * ua * (e.condition(k) + std::sqrt(N) + 2.0) * e.magnitude(k); };
  } else if (c.op == "quantize") {  // the scale: amax / qmax in fp32, one rounding
    t.relative = 2.0 * ua;
    t.absolute = [=](std::size_t) { return floor; };
  } else {
    throw std::invalid_argument("no tolerance model for op '" + c.op + "'");
  }
}

}  // namespace

double OutputTolerance::bound(std::size_t k, double expected) const {
  return absolute(k) + relative * rounded_abs(dtype, expected);
}

double least_subnormal(opcert_dtype dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return 4.9406564584124654e-324;
    case OPCERT_DTYPE_F32: return 1.4012984643248171e-45;
    case OPCERT_DTYPE_F16: return decode_fp16(1);
    case OPCERT_DTYPE_BF16: return decode_bf16(1);
    case OPCERT_DTYPE_F8_E4M3FN: return decode_fp8_e4m3fn(1);
    case OPCERT_DTYPE_F8_E5M2: return decode_fp8_e5m2(1);
    default: return 0.0;
  }
}

OutputTolerance output_tolerance(const Case& c, const ReferenceOutput& ref, const BoundOverride& override_) {
  const TensorSpec* out = c.find_output(ref.name);
  if (out == nullptr) throw std::invalid_argument("the reference produced output '" + ref.name + "', not in the case");
  OutputTolerance t;
  t.dtype = out->dtype;
  if (t.dtype == OPCERT_DTYPE_I32 || (c.op != "quantize" && t.dtype == OPCERT_DTYPE_I8)) {
    t.rule = OutputTolerance::Rule::kExact;
    t.absolute = [](std::size_t) { return 0.0; };
    return t;
  }
  if (c.op == "quantize" && ref.name == "q") {
    t.rule = OutputTolerance::Rule::kQuantizedCode;  // one code of the output format near a boundary
    t.absolute = [](std::size_t) { return 0.0; };
    return t;
  }
  derive(c, ref, t);
  if (override_.rtol) t.relative = *override_.rtol;
  if (override_.atol) t.absolute = [atol = *override_.atol](std::size_t) { return atol; };
  return t;
}

}  // namespace opcert
