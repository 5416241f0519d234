#include "check/collectives/rank_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/scalar_codec.h"

namespace opcert {
namespace {

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

std::string shown(double v) { return fmt::format("{}", v); }

// y[i] = value(i) for every i, across the cores: hundreds of MiB per rank are checked on the host,
// and each element depends on its index alone.
template <typename ValueOf>
void fill_parallel(std::vector<double>& y, const ValueOf& value) {
  const auto n = static_cast<int64_t>(y.size());
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = value(i);
}

// The comparison's running figures over one chunk of the output. Chunks have a fixed size and are
// merged in order, so the sums (and which element is first or worst) do not depend on the number
// of threads.
struct ChunkFigures {
  double sum_abs = 0, sum_sq = 0, dot = 0, got_sq = 0, exp_sq = 0, max_rel = 0, max_abs = 0;
  int64_t max_ulp = 0;
  int64_t zeros = 0, mismatches = 0, nan_inf_mismatches = 0;
  int64_t first_mismatch = -1, worst = -1;
  double first_got = 0, first_expected = 0, worst_got = 0, worst_expected = 0;
};

constexpr int64_t kChunk = 1 << 16;

ChunkFigures chunk_figures(const HostTensor& got, const ExpectedOutput& expected, int64_t begin, int64_t end) {
  ChunkFigures f;
  for (int64_t i = begin; i < end; ++i) {
    const double g = got.value(i);
    const double e = expected.values[static_cast<std::size_t>(i)];
    const double diff = std::isnan(g) ? INFINITY : std::fabs(g - e);
    if (g == 0.0) ++f.zeros;
    if (diff > expected.bound) {
      if (f.mismatches == 0) f.first_mismatch = i, f.first_got = g, f.first_expected = e;
      ++f.mismatches;
      if (!std::isfinite(g)) ++f.nan_inf_mismatches;
    }
    if (std::isfinite(diff)) {
      f.sum_abs += diff;
      f.sum_sq += diff * diff;
      f.dot += g * e;
      f.got_sq += g * g;
      f.exp_sq += e * e;
      if (e != 0.0) f.max_rel = std::max(f.max_rel, diff / std::fabs(e));
      if (std::isfinite(g)) f.max_ulp = std::max(f.max_ulp, ulp_distance(got.spec.dtype, g, e));
    }
    if (f.worst < 0 || diff > f.max_abs) f.max_abs = diff, f.worst = i, f.worst_got = g, f.worst_expected = e;
  }
  return f;
}

// Folds `c` (the next chunk) into `into`.
void merge(ChunkFigures& into, const ChunkFigures& c) {
  into.sum_abs += c.sum_abs, into.sum_sq += c.sum_sq, into.dot += c.dot, into.got_sq += c.got_sq, into.exp_sq += c.exp_sq;
  into.max_rel = std::max(into.max_rel, c.max_rel);
  into.max_ulp = std::max(into.max_ulp, c.max_ulp);
  into.zeros += c.zeros;
  if (into.first_mismatch < 0 && c.first_mismatch >= 0)
    into.first_mismatch = c.first_mismatch, into.first_got = c.first_got, into.first_expected = c.first_expected;
  into.mismatches += c.mismatches;
  into.nan_inf_mismatches += c.nan_inf_mismatches;
  if (c.worst >= 0 && (into.worst < 0 || c.max_abs > into.max_abs))
    into.max_abs = c.max_abs, into.worst = c.worst, into.worst_got = c.worst_got, into.worst_expected = c.worst_expected;
}

}  // namespace

ExpectedOutput expected_output(const CollectiveSpec& spec, const RankInputs& inputs, int rank) {
  const int n = inputs.ranks();
  if (rank < 0 || rank >= n) throw std::invalid_argument(fmt::format("rank {} is outside a world of {}", rank, n));
  // Said here, not inside the parallel fill, where an exception could not be caught.
  if (spec.rooted() && !spec.root_rank(n))
    throw std::invalid_argument(fmt::format("root {} names no rank of a world of {}", spec.root, n));
  ExpectedOutput out;
  out.values.resize(static_cast<std::size_t>(spec.output_elements(n)));
  auto& y = out.values;
  fill_parallel(y, [&](int64_t i) { return spec.traits->expected(spec, inputs, rank, i); });
  fill_parallel(y, [&](int64_t i) { return round_to(spec.dtype, y[static_cast<std::size_t>(i)]); });
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
  m.empty = m.total == 0;
  if (static_cast<int64_t>(expected.values.size()) != m.total)
    throw std::invalid_argument(fmt::format("output '{}' has {} elements, the expectation {}", m.name, m.total,
                                            expected.values.size()));
  first_mismatch.clear();
  const int64_t chunks = (m.total + kChunk - 1) / kChunk;
  std::vector<ChunkFigures> per_chunk(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
  for (int64_t c = 0; c < chunks; ++c)
    per_chunk[static_cast<std::size_t>(c)] = chunk_figures(got, expected, c * kChunk, std::min(m.total, (c + 1) * kChunk));
  ChunkFigures f;
  for (const ChunkFigures& c : per_chunk) merge(f, c);
  m.mismatches = f.mismatches;
  m.nan_inf_mismatches = f.nan_inf_mismatches;
  m.max_rel = f.max_rel;
  m.max_ulp = f.max_ulp;
  if (f.worst >= 0) {
    m.max_abs = f.max_abs;
    m.worst = {f.worst, f.worst_got, f.worst_expected, expected.bound};
  }
  if (f.first_mismatch >= 0)
    first_mismatch = fmt::format("rank {}, {}[{}]: got {}, expected {}", rank, m.name, f.first_mismatch, shown(f.first_got),
                                 shown(f.first_expected));
  if (m.total > 0) {
    m.mean_abs = f.sum_abs / static_cast<double>(m.total);
    m.rmse = std::sqrt(f.sum_sq / static_cast<double>(m.total));
    m.zero_fraction = static_cast<double>(f.zeros) / static_cast<double>(m.total);
    m.cosine = (f.got_sq > 0 && f.exp_sq > 0) ? f.dot / std::sqrt(f.got_sq * f.exp_sq) : (f.got_sq == f.exp_sq ? 1.0 : 0.0);
  }
  // Exact checks have no bound: the ratio is the largest difference itself (0 when all match).
  m.error_ratio = expected.bound > 0 ? m.max_abs / expected.bound : m.max_abs;
  if (m.mismatches > 1) first_mismatch += fmt::format(" ({} of {} elements differ)", m.mismatches, m.total);
  return m;
}

}  // namespace opcert
