#include "check/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "check/rounding_check.h"
#include "model/scalar_codec.h"

namespace opcert {
namespace {

// Fraction of zero expected values above which a pass proves little (after benchdnn).
constexpr double kMistrustedZeroFraction = 0.9;
constexpr int64_t kMistrustedMinElements = 16;

// A code is the rounding of the ideal quotient or, where the quotient's noise straddles a rounding
// boundary, of a value within that noise.
bool acceptable_code(opcert_dtype dtype, double got, double ideal, double noise) {
  return got == round_to(dtype, ideal) || got == round_to(dtype, ideal - noise) || got == round_to(dtype, ideal + noise);
}

// How far past its bound a misrounded element counts: one more than its ulps from the right bits.
double misrounded_ratio(opcert_dtype dtype, double got, double held) {
  return 1.0 + static_cast<double>(ulp_distance(dtype, got, held));
}

// Is `got` the special value the reference asks for (NaN for NaN, the same infinity)?
bool same_special(opcert_dtype dtype, double got, double expected) {
  if (std::isnan(expected)) return std::isnan(got);
  const double held = round_to(dtype, expected);  // a huge finite value may overflow to inf in T
  if (std::isinf(held)) return got == held || (std::isfinite(got) && std::fabs(got) == max_finite(dtype) && std::signbit(got) == std::signbit(held));
  return false;
}

}  // namespace

std::string describe_bias(const RoundingMetrics& r) {
  const char* toward = r.bias_direction == "magnitude" ? (r.bias_ulp < 0 ? "toward zero" : "away from zero")
                                                       : (r.bias_ulp < 0 ? "downward" : "upward");
  return fmt::format("mean error {:+.3f} ulp ({}) over {} elements, {:.1f} standard errors beyond what rounding to "
                     "nearest allows (chance {:.2g})",
                     r.bias_ulp, toward, r.bias_elements, r.bias_z, r.bias_chance());
}

TensorMetrics compare_output(const HostTensor& got, const ReferenceOutput& ref, const OutputTolerance& tol) {
  TensorMetrics m;
  m.name = ref.name;
  m.total = got.spec.numel();
  m.empty = m.total == 0;
  const bool sampled = !ref.indices.empty();
  const std::size_t n = ref.values.size();
  m.checked = static_cast<int64_t>(n);
  double sum_abs = 0.0, sum_sq = 0.0, dot = 0.0, got_sq = 0.0, ref_sq = 0.0, bound_sq = 0.0;
  int64_t finite_pairs = 0, zeros = 0, bounded = 0;
  double worst_ratio = -1.0;
  RoundingCheck rounding(tol);

  for (std::size_t k = 0; k < n; ++k) {
    const int64_t index = sampled ? ref.indices[k] : static_cast<int64_t>(k);
    const double g = got.value(index);
    const double x = ref.values[k];
    const double held = round_to(tol.dtype, x);
    if (held == 0.0) ++zeros;

    double err = 0.0, bound = 0.0, ratio = 0.0;
    bool mismatch = false;
    if (!std::isfinite(x) || !std::isfinite(held) || !std::isfinite(g)) {
      const bool ok = std::isfinite(x) && std::isfinite(held) ? false : same_special(tol.dtype, g, x);
      if (!ok) {
        mismatch = true;
        ++m.nan_inf_mismatches;
        ratio = std::numeric_limits<double>::infinity();
      }
      err = ok ? 0.0 : std::numeric_limits<double>::infinity();
    } else {
      err = std::fabs(g - x);
      switch (tol.rule) {
        case OutputTolerance::Rule::kExact:
          mismatch = g != x;
          ratio = mismatch ? std::numeric_limits<double>::infinity() : 0.0;
          break;
        case OutputTolerance::Rule::kQuantizedCode: {
          rounding.observe(k, index, g, x, held);  // counts decided codes; a misrounded one is no acceptable code
          mismatch = !acceptable_code(tol.dtype, g, x, tol.noise ? tol.noise(k) : 0.0);
          err = std::fabs(g - held);
          bound = 1.0;  // one code
          ratio = mismatch ? misrounded_ratio(tol.dtype, g, held) : 0.0;
          break;
        }
        case OutputTolerance::Rule::kBound: {
          bound = tol.bound(k, x);
          bound_sq += bound * bound;
          ++bounded;
          ratio = err == 0.0 ? 0.0 : (bound > 0.0 ? err / bound : std::numeric_limits<double>::infinity());
          const bool misrounded = rounding.observe(k, index, g, x, held);
          if (misrounded) ratio = std::max(ratio, misrounded_ratio(tol.dtype, g, held));
          mismatch = err > bound || misrounded;
          break;
        }
      }
      ++finite_pairs;
      sum_abs += err;
      sum_sq += err * err;
      dot += g * x;
      got_sq += g * g;
      ref_sq += x * x;
      m.max_abs = std::max(m.max_abs, err);
      if (x != 0.0) m.max_rel = std::max(m.max_rel, err / std::fabs(x));
      m.max_ulp = std::max(m.max_ulp, ulp_distance(tol.dtype, g, held));
    }
    if (mismatch) ++m.mismatches;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      m.worst = {index, g, x, bound};
    }
  }
  if (finite_pairs > 0) {
    m.mean_abs = sum_abs / static_cast<double>(finite_pairs);
    m.rmse = std::sqrt(sum_sq / static_cast<double>(finite_pairs));
  }
  if (bounded > 0) m.bound_rms = std::sqrt(bound_sq / static_cast<double>(bounded));
  m.cosine = (got_sq == 0.0 && ref_sq == 0.0) ? 1.0 : (got_sq == 0.0 || ref_sq == 0.0) ? 0.0 : dot / std::sqrt(got_sq * ref_sq);
  m.error_ratio = std::max(worst_ratio, 0.0);
  m.zero_fraction = n == 0 ? 0.0 : static_cast<double>(zeros) / static_cast<double>(n);
  m.rounding = rounding.finish();
  return m;
}

Status judge(const std::vector<TensorMetrics>& metrics, std::string& message, bool zeros_expected) {
  // Nothing compared proves nothing: an output with elements none of which was checked is no pass.
  for (const auto& m : metrics) {
    if (m.checked == 0 && m.total > 0) {
      message = fmt::format("{}: 0 of its {} elements were checked; nothing was judged", m.name, m.total);
      return Status::kError;
    }
  }
  for (const auto& m : metrics) {
    if (m.rounding.biased) {
      message = fmt::format("{}: biased rounding: {}{}", m.name, describe_bias(m.rounding),
                            m.mismatches ? fmt::format("; {} of {} elements out of bound", m.mismatches, m.checked) : "");
      return Status::kFailed;
    }
  }
  for (const auto& m : metrics) {
    if (m.mismatches > 0) {
      std::string notes;
      if (m.nan_inf_mismatches) notes += fmt::format(" ({} NaN/Inf mismatches)", m.nan_inf_mismatches);
      if (m.rounding.misrounded)
        notes += fmt::format(" ({} of {} decided elements not rounded to nearest even)", m.rounding.misrounded, m.rounding.decisive);
      // A worst element whose ratio is its misrounding (1 + its ulps) may be within its bound: say
      // what it did, in ulps, rather than print that ratio beside the bound as if it were one.
      const bool misrounding_is_worst =
          m.rounding.misrounded > 0 && m.error_ratio == 1.0 + static_cast<double>(m.rounding.worst_misrounded_ulp);
      const bool within = std::fabs(m.worst.got - m.worst.expected) <= m.worst.bound;
      const std::string how = !misrounding_is_worst ? fmt::format("bound {:.3g}, {:.3g}x", m.worst.bound, m.error_ratio)
                              : fmt::format("{}bound {:.3g}; {}", within ? "within its " : "", m.worst.bound,
                                            describe_misrounding(m.rounding));
      message = fmt::format("{}: {} of {} elements out of bound{}; worst at [{}]: got {} expected {} ({})", m.name,
                            m.mismatches, m.checked, notes, m.worst.index, m.worst.got, m.worst.expected, how);
      return Status::kFailed;
    }
  }
  for (const auto& m : metrics) {
    if (zeros_expected) break;
    if (m.checked >= kMistrustedMinElements && m.zero_fraction > kMistrustedZeroFraction) {
      message = fmt::format("{}: {:.0f}% of the expected values are zero; a pass proves little", m.name,
                            100.0 * m.zero_fraction);
      return Status::kMistrusted;
    }
  }
  message.clear();
  for (const auto& m : metrics)  // the shapes make it empty, as the op's contract allows (docs/OPS.md)
    if (m.empty) message += fmt::format("{}{}: empty output (0 elements), nothing to compare", message.empty() ? "" : "; ", m.name);
  return Status::kPassed;
}

}  // namespace opcert
