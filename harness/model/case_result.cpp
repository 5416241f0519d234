#include "model/case_result.h"

#include <cmath>

namespace opcert {

namespace {

// The continued fraction of the regularised incomplete beta function (modified Lentz), for x below
// its mean: converges in a few dozen steps for the degrees of freedom the bias test has.
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  d = 1.0 / (std::fabs(d) < kTiny ? kTiny : d);
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    for (const double numerator : {m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
                                   -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0))}) {
      d = 1.0 + numerator * d;
      d = 1.0 / (std::fabs(d) < kTiny ? kTiny : d);
      c = 1.0 + numerator / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      h *= d * c;
    }
    if (std::fabs(d * c - 1.0) < 1e-15) break;
  }
  return h;
}

// P(T > t) for Student's t with `nu` degrees of freedom, t >= 0: I_x(nu/2, 1/2) / 2 at x = nu / (nu + t^2).
double student_t_tail(double t, double nu) {
  const double x = nu / (nu + t * t), a = nu / 2.0, b = 0.5;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return 0.5 * front * beta_fraction(a, b, x) / a;
  return 0.5 * (1.0 - front * beta_fraction(b, a, 1.0 - x) / b);  // I_x(a, b) = 1 - I_(1-x)(b, a)
}

}  // namespace

double RoundingMetrics::bias_chance() const {
  if (bias_direction.empty()) return 1.0;  // too few elements: no test, no confidence
  if (bias_batches < 2) return 0.5 * std::erfc(bias_z / std::sqrt(2.0));
  return student_t_tail(bias_z, static_cast<double>(bias_batches - 1));
}

CaseResult blank_result(const std::string& backend, const std::string& impl_key, const Case& c) {
  CaseResult r;
  r.backend = backend;
  r.impl_key = impl_key;
  r.suite = c.suite;
  r.case_id = c.id;
  r.op = c.op;
  r.dtype = c.dtype;
  return r;
}

}  // namespace opcert
