// How big a case may be (docs/SUITES.md, "Sizes"): each operand, and all of a case's operands
// together, within kMaxCaseBytes (model/checked_size.h); and the values a case builder lists for an
// operand at load (rope's positions, exact scales) within kMaxListedValues, so that loading a suite
// never allocates without bound.
#pragma once

#include <cstdint>

#include "model/case.h"
#include "model/checked_size.h"

namespace opcert::opkit {

/// The most values a builder lists for one operand when the suite loads (FillSpec::Kind::kValues):
/// 2^26, half a GiB of doubles; every shipped suite stays below it (Suite.EveryShippedSuiteLoads...).
inline constexpr int64_t kMaxListedValues = int64_t{1} << 26;

/// The element count of `t`, whose values the builder is about to list; throws SizeError when it
/// does not fit or passes kMaxListedValues.
int64_t listed_count(const TensorSpec& t);

/// Throws SizeError unless every operand of `c` fits kMaxCaseBytes and all of them together do
/// (naming the largest operand when only their sum is over).
void require_case_fits(const Case& c);

}  // namespace opcert::opkit
