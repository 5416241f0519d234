#include "check/collectives/rank_inputs.h"

#include <fmt/format.h>

#include <cmath>

#include "model/dtype.h"
#include "model/scalar_codec.h"

namespace opcert {
namespace {

std::string rank_tensor_name(int rank) { return fmt::format("x.rank{}", rank); }

double draw(const CounterRng& rng, int64_t i, int64_t bound) {
  const double span = static_cast<double>(2 * bound + 1);
  return std::floor(rng.uniform(static_cast<uint64_t>(i)) * span) - static_cast<double>(bound);
}

}  // namespace

RankInputs::RankInputs(const CollectiveSpec& spec, uint64_t seed, std::string_view case_id, int ranks)
    : spec_(spec), ranks_(ranks), bound_(collective_value_bound(spec, ranks)) {
  streams_.reserve(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) streams_.emplace_back(seed, case_id, rank_tensor_name(r));
}

double RankInputs::value(int rank, int64_t i) const { return draw(streams_.at(static_cast<std::size_t>(rank)), i, bound_); }

HostTensor RankInputs::tensor(int rank) const {
  HostTensor t(TensorSpec{"x", spec_.dtype, {spec_.input_elements(ranks_)}, {}});
  const CounterRng& rng = streams_.at(static_cast<std::size_t>(rank));
  const std::size_t width = dtype_bytes(spec_.dtype);
  const int64_t n = t.spec.numel();
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; ++i) {
    store_as(spec_.dtype, draw(rng, i, bound_), t.bytes.data() + static_cast<std::size_t>(i) * width);
  }
  return t;
}

}  // namespace opcert
