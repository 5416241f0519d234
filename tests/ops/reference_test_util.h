// Builds small cases with hand-chosen inputs for the golden reference tests, and checks that a
// sampled reference matches the whole one.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "model/case.h"
#include "model/dtype.h"
#include "model/host_tensor.h"
#include "model/scalar_codec.h"
#include "reference/reference.h"

namespace opcert::testing {

/// A case under construction: inputs hold exactly the given values (rounded into the dtype).
struct CaseUnderTest {
  Case c;
  std::vector<HostTensor> inputs;

  explicit CaseUnderTest(std::string op) {
    c.op = std::move(op);
    c.id = c.op + ".test";
  }
  CaseUnderTest& input(const std::string& name, opcert_dtype dtype, std::vector<int64_t> shape,
                       const std::vector<double>& values) {
    TensorSpec spec{name, dtype, std::move(shape), {}};
    c.inputs.push_back(spec);
    HostTensor t(spec);
    EXPECT_EQ(static_cast<int64_t>(values.size()), spec.numel()) << "values of " << name;
    const std::size_t width = dtype_bytes(dtype);
    for (std::size_t i = 0; i < values.size() && i < static_cast<std::size_t>(spec.numel()); ++i)
      store_as(dtype, values[i], t.bytes.data() + i * width);
    inputs.push_back(std::move(t));
    return *this;
  }
  CaseUnderTest& output(const std::string& name, opcert_dtype dtype, std::vector<int64_t> shape) {
    c.outputs.push_back(TensorSpec{name, dtype, std::move(shape), {}});
    return *this;
  }
  CaseUnderTest& attr(const std::string& name, AttrValue value) {
    c.attrs[name] = std::move(value);
    return *this;
  }
  std::vector<ReferenceOutput> run(const SamplePlan& plan = {}) const { return compute_reference(c, inputs, plan); }
};

/// Deterministic values in [lo, hi] (a small LCG: tests need variety, not quality).
inline std::vector<double> pseudo_random(int64_t n, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  std::vector<double> v(static_cast<std::size_t>(n));
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = lo + (hi - lo) * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  return v;
}

inline void expect_values(const std::vector<double>& got, const std::vector<double>& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << "[" << i << "] = " << got[i] << ", want NaN";
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << "[" << i << "]";
    } else {
      EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << what << "[" << i << "]";
    }
  }
}

/// A spread of indices of an output: every `stride`-th element plus the last one.
inline std::vector<int64_t> spread_indices(int64_t numel, int64_t stride) {
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < numel; i += stride) idx.push_back(i);
  if (numel > 0 && idx.back() != numel - 1) idx.push_back(numel - 1);
  return idx;
}

/// The sampled reference of every output equals the whole reference at the sampled indices.
inline void expect_sample_matches_whole(const CaseUnderTest& t, int64_t stride) {
  const std::vector<ReferenceOutput> whole = t.run();
  SamplePlan plan;
  for (const auto& spec : t.c.outputs) plan[spec.name] = spread_indices(spec.numel(), stride);
  const std::vector<ReferenceOutput> part = t.run(plan);
  ASSERT_EQ(whole.size(), part.size());
  for (std::size_t o = 0; o < whole.size(); ++o) {
    const auto& w = whole[o];
    const auto& p = part[o];
    ASSERT_EQ(w.name, p.name);
    EXPECT_TRUE(w.indices.empty());
    ASSERT_EQ(p.indices, plan[p.name]) << p.name;
    std::vector<double> want_v, want_m, want_c;
    for (int64_t i : p.indices) {
      want_v.push_back(w.values[static_cast<std::size_t>(i)]);
      want_m.push_back(w.magnitude[static_cast<std::size_t>(i)]);
      if (!w.condition.empty()) want_c.push_back(w.condition[static_cast<std::size_t>(i)]);
    }
    expect_values(p.values, want_v, 1e-12, p.name + " values");
    expect_values(p.magnitude, want_m, 1e-12, p.name + " magnitude");
    expect_values(p.condition, want_c, 1e-12, p.name + " condition");
  }
}

}  // namespace opcert::testing
