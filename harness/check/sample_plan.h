// Which output elements a sampled check recomputes: a deterministic, sorted set keyed like the
// inputs, always with the first and last element (where off-by-one errors show).
#pragma once

#include "model/case.h"
#include "reference/reference.h"

namespace opcert {

/// Outputs with more than `limit` elements get `limit` sampled indices; limit 0 checks all.
SamplePlan make_sample_plan(const Case& c, int64_t limit);

/// The sample a check of `c` draws: make_sample_plan with the case's own limit. Runs and golden
/// exports both use this, so that a golden set holds exactly the elements a run checks.
inline SamplePlan case_sample_plan(const Case& c) { return make_sample_plan(c, c.sample_elements); }

}  // namespace opcert
