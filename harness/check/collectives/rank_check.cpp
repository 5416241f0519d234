#include "check/collectives/rank_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/scalar_codec.h"

namespace opcert {
namespace {

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

double combine(ReduceOp op, double acc, double v) {
  switch (op) {
    case ReduceOp::kMax: return std::max(acc, v);
    case ReduceOp::kMin: return std::min(acc, v);
    default: return acc + v;
  }
}

// reduce_op over every rank's element `i`, with avg's division as the contract states it.
double reduced(const CollectiveSpec& spec, const RankInputs& inputs, int64_t i) {
  double acc = inputs.value(0, i);
  for (int r = 1; r < inputs.ranks(); ++r) acc = combine(spec.reduce, acc, inputs.value(r, i));
  if (spec.reduce != ReduceOp::kAvg) return acc;
  const double n = inputs.ranks();
  return spec.dtype == OPCERT_DTYPE_I32 ? std::trunc(acc / n) : acc / n;
}

std::string shown(double v) { return fmt::format("{}", v); }

}  // namespace

ExpectedOutput expected_output(const CollectiveSpec& spec, const RankInputs& inputs, int rank) {
  const int n = inputs.ranks();
  if (rank < 0 || rank >= n) throw std::invalid_argument(fmt::format("rank {} is outside a world of {}", rank, n));
  ExpectedOutput out;
  const int64_t count = spec.count;
  out.values.resize(static_cast<std::size_t>(spec.output_elements(n)));
  auto& y = out.values;
  switch (spec.kind) {
    case CollectiveKind::kAllReduce:
      for (int64_t i = 0; i < count; ++i) y[i] = reduced(spec, inputs, i);
      break;
    case CollectiveKind::kReduceScatter:
      for (int64_t i = 0; i < count; ++i) y[i] = reduced(spec, inputs, rank * count + i);
      break;
    case CollectiveKind::kAllGather:
      for (int j = 0; j < n; ++j)
        for (int64_t i = 0; i < count; ++i) y[j * count + i] = inputs.value(j, i);
      break;
    case CollectiveKind::kBroadcast: {
      const auto root = spec.root_rank(n);
      if (!root) throw std::invalid_argument(fmt::format("root {} names no rank of a world of {}", spec.root, n));
      for (int64_t i = 0; i < count; ++i) y[i] = inputs.value(*root, i);
      break;
    }
    case CollectiveKind::kAllToAll:
      for (int j = 0; j < n; ++j)
        for (int64_t i = 0; i < count; ++i) y[j * count + i] = inputs.value(j, rank * count + i);
      break;
  }
  for (double& v : y) v = round_to(spec.dtype, v);
  // avg scales by 1/n; unless n is a power of two that factor is inexact, each scaled term and
  // each partial sum may round: (n + 1) unit roundoffs of the largest input (docs/OPS.md).
  if (spec.reduces() && spec.reduce == ReduceOp::kAvg && spec.dtype != OPCERT_DTYPE_I32 && !power_of_two(n))
    out.bound = (n + 1) * unit_roundoff(spec.dtype) * static_cast<double>(inputs.bound());
  return out;
}

TensorMetrics compare_rank_output(const HostTensor& got, const ExpectedOutput& expected, int rank,
                                  std::string& first_mismatch) {
  TensorMetrics m;
  m.name = got.spec.name;
  m.total = got.spec.numel();
  m.checked = m.total;
  if (static_cast<int64_t>(expected.values.size()) != m.total)
    throw std::invalid_argument(fmt::format("output '{}' has {} elements, the expectation {}", m.name, m.total,
                                            expected.values.size()));
  first_mismatch.clear();
  double sum_abs = 0.0, sum_sq = 0.0, dot = 0.0, got_sq = 0.0, exp_sq = 0.0;
  int64_t zeros = 0;
  for (int64_t i = 0; i < m.total; ++i) {
    const double g = got.value(i);
    const double e = expected.values[static_cast<std::size_t>(i)];
    const double diff = std::isnan(g) ? INFINITY : std::fabs(g - e);
    if (g == 0.0) ++zeros;
    if (diff > expected.bound) {
      if (m.mismatches == 0)
        first_mismatch = fmt::format("rank {}, {}[{}]: got {}, expected {}", rank, m.name, i, shown(g), shown(e));
      ++m.mismatches;
      if (!std::isfinite(g)) ++m.nan_inf_mismatches;
    }
    if (std::isfinite(diff)) {
      sum_abs += diff;
      sum_sq += diff * diff;
      dot += g * e;
      got_sq += g * g;
      exp_sq += e * e;
      if (e != 0.0) m.max_rel = std::max(m.max_rel, diff / std::fabs(e));
      if (std::isfinite(g)) m.max_ulp = std::max(m.max_ulp, ulp_distance(got.spec.dtype, g, e));
    }
    if (m.worst.index < 0 || diff > m.max_abs) {
      m.max_abs = diff;
      m.worst = {i, g, e, expected.bound};
    }
  }
  if (m.total > 0) {
    m.mean_abs = sum_abs / static_cast<double>(m.total);
    m.rmse = std::sqrt(sum_sq / static_cast<double>(m.total));
    m.zero_fraction = static_cast<double>(zeros) / static_cast<double>(m.total);
    m.cosine = (got_sq > 0 && exp_sq > 0) ? dot / std::sqrt(got_sq * exp_sq) : (got_sq == exp_sq ? 1.0 : 0.0);
  }
  // Exact checks have no bound: the ratio is the largest difference itself (0 when all match).
  m.error_ratio = expected.bound > 0 ? m.max_abs / expected.bound : m.max_abs;
  if (m.mismatches > 1) first_mismatch += fmt::format(" ({} of {} elements differ)", m.mismatches, m.total);
  return m;
}

}  // namespace opcert
