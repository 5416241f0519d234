// The tolerance model's machinery (docs/TOLERANCES.md): the rule every integer output gets, the
// op's own derivation (OpDescriptor::tolerance, in harness/ops/<op>/), and a platform config's
// override of the derived bound.
#pragma once

#include <optional>

#include "model/case.h"
#include "opkit/output_tolerance.h"
#include "opkit/reference_output.h"

namespace opcert {

/// A platform config's override of the derived bound (docs/CONFIGS.md): a given field replaces
/// the derived absolute or relative part.
struct BoundOverride {
  std::optional<double> atol;
  std::optional<double> rtol;
};

/// The tolerance of output `ref.name` of case `c`: exact for an integer output unless its op says
/// otherwise, else the op's derived bound with `override_` applied. Throws std::invalid_argument
/// for an output the case does not list or an op without a tolerance model.
OutputTolerance output_tolerance(const Case& c, const ReferenceOutput& ref, const BoundOverride& override_ = {});

}  // namespace opcert
