#include "check/tolerance.h"

#include <fmt/format.h>

#include <stdexcept>

#include "model/scalar_codec.h"
#include "opkit/op_registry.h"

namespace opcert {
namespace {

bool is_integer(opcert_dtype dtype) { return dtype == OPCERT_DTYPE_I32 || dtype == OPCERT_DTYPE_I8; }

}  // namespace

OutputTolerance output_tolerance(const Case& c, const ReferenceOutput& ref, const BoundOverride& override_) {
  const TensorSpec* out = c.find_output(ref.name);
  if (out == nullptr) throw std::invalid_argument("the reference produced output '" + ref.name + "', not in the case");
  const OpDescriptor& op = op_of(c);
  if (op.tolerance == nullptr) throw std::invalid_argument(fmt::format("no tolerance model for op '{}'", c.op));
  OutputTolerance t;
  t.dtype = out->dtype;
  t.rule = is_integer(t.dtype) ? OutputTolerance::Rule::kExact : OutputTolerance::Rule::kBound;
  // Round-to-nearest gives at most u|v|; one more ulp (2u|v| in all) covers an accumulated error
  // that tips the rounding the other way. Ops keep it or replace it.
  t.relative = 2.0 * unit_roundoff(t.dtype);
  op.tolerance(c, ref, t);
  if (t.rule != OutputTolerance::Rule::kBound) {  // exact rules have no bound to override
    t.relative = 0.0;
    t.absolute = [](std::size_t) { return 0.0; };
    return t;
  }
  if (!t.absolute) throw std::logic_error(fmt::format("op '{}' set no absolute bound for output '{}'", c.op, ref.name));
  // The absolute part is the error a conforming value may carry before its final rounding,
  // unless the op says otherwise (docs/TOLERANCES.md, "Rounding").
  if (!t.noise) t.noise = t.absolute;
  if (override_.rtol || override_.atol) t.rounding_checks = false;  // the platform's bound replaces the model
  if (override_.rtol) t.relative = *override_.rtol;
  if (override_.atol) t.absolute = [atol = *override_.atol](std::size_t) { return atol; };
  return t;
}

}  // namespace opcert
