#include "model/case_result.h"

#include <cmath>

namespace opcert {

double RoundingMetrics::bias_chance() const {
  if (bias_direction.empty()) return 1.0;  // too few elements: no test, no confidence
  return 0.5 * std::erfc(bias_z / std::sqrt(2.0));
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
