#include "model/case_result.h"

namespace opcert {

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
